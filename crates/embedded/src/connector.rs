//! The smithy HTTP client/connector that answers requests in process.

use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;
use monotable_server::Service;

/// An SDK HTTP client whose every connection is a direct call into a [`Service`].
///
/// Requests complete synchronously inside `call`: the engine's operations are short and
/// never wait on I/O, so there is nothing to gain from a task hop.
#[derive(Debug, Clone)]
pub struct EmbeddedHttpClient {
    service: Service,
}

impl EmbeddedHttpClient {
    /// A client answering from `service`.
    pub fn new(service: Service) -> Self {
        EmbeddedHttpClient { service }
    }

    fn handle(&self, request: HttpRequest) -> Result<HttpResponse, ConnectorError> {
        let request = request.try_into_http1x().map_err(|e| ConnectorError::user(Box::new(e)))?;
        let (parts, body) = request.into_parts();
        // DynamoDB requests are always buffered JSON; the SDK never streams them.
        let bytes = body
            .bytes()
            .ok_or_else(|| ConnectorError::user("the embedded client cannot send a streaming body".into()))?;
        let response = self.service.handle(&parts, bytes).map(SdkBody::from);
        HttpResponse::try_from(response).map_err(|e| ConnectorError::other(Box::new(e), None))
    }
}

impl HttpConnector for EmbeddedHttpClient {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        HttpConnectorFuture::ready(self.handle(request))
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
