//! The smithy HTTP client/connector that answers requests in process.

use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;
use bytes::Bytes;
use http::Response;
use monotable_engine::{defer_sync, PendingSync};
use monotable_server::{when_durable, Service};

/// An SDK HTTP client whose every connection is a direct call into a [`Service`].
///
/// The engine call runs synchronously inside `call`: the engine's operations are short, so
/// there is nothing to gain from a task hop. It runs with durability deferred, so on a durable
/// engine the returned future waits for the request's writes to reach the device (without
/// blocking a thread); otherwise it is ready at once.
#[derive(Debug, Clone)]
pub struct EmbeddedHttpClient {
    service: Service,
}

impl EmbeddedHttpClient {
    /// A client answering from `service`.
    pub fn new(service: Service) -> Self {
        EmbeddedHttpClient { service }
    }

    /// Runs the request; the response may be waiting for its writes to be durable.
    fn handle(&self, request: HttpRequest) -> Result<(Response<Bytes>, Option<PendingSync>), ConnectorError> {
        let request = request.try_into_http1x().map_err(|e| ConnectorError::user(Box::new(e)))?;
        let (parts, body) = request.into_parts();
        // DynamoDB requests are always buffered JSON; the SDK never streams them.
        let bytes = body
            .bytes()
            .ok_or_else(|| ConnectorError::user("the embedded client cannot send a streaming body".into()))?;
        Ok(defer_sync(|| self.service.handle(&parts, bytes)))
    }
}

fn to_sdk(response: Response<Bytes>) -> Result<HttpResponse, ConnectorError> {
    HttpResponse::try_from(response.map(SdkBody::from)).map_err(|e| ConnectorError::other(Box::new(e), None))
}

impl HttpConnector for EmbeddedHttpClient {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        match self.handle(request) {
            Err(e) => HttpConnectorFuture::ready(Err(e)),
            Ok((response, None)) => HttpConnectorFuture::ready(to_sdk(response)),
            Ok((response, Some(pending))) => {
                HttpConnectorFuture::new(async move { to_sdk(when_durable(response, pending).await) })
            }
        }
    }
}

impl HttpClient for EmbeddedHttpClient {
    fn http_connector(
        &self,
        _settings: &HttpConnectorSettings,
        _components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(self.clone())
    }
}
