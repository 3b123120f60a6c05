//! Captures the exact request the SDK sends, so the page can show it.
//!
//! A [`Capture`] is attached to one SDK call (`.customize().interceptor(…)`) and records the
//! `X-Amz-Target` header and the JSON body as they leave for the endpoint, after
//! serialization and before signing headers matter. The signature and credentials are not
//! recorded: only the target and the body.

use std::sync::Arc;

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::context::BeforeTransmitInterceptorContextRef;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;
use parking_lot::Mutex;
use serde_json::{json, Value};

/// One call's sent request (`{"target": …, "body": …}`), once the call has been sent.
#[derive(Debug, Clone, Default)]
pub struct Capture(Arc<Mutex<Option<Value>>>);

impl Capture {
    /// A capture that has seen nothing yet.
    pub fn new() -> Capture {
        Capture::default()
    }

    /// The request as sent; `null` if the call never reached the transmit stage.
    pub fn sent(&self) -> Value {
        self.0.lock().clone().unwrap_or(Value::Null)
    }
}

impl Intercept for Capture {
    fn name(&self) -> &'static str {
        "monotable-console-capture"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = context.request();
        let target = request.headers().get("x-amz-target").unwrap_or_default().to_string();
        let body = request
            .body()
            .bytes()
            .and_then(|b| serde_json::from_slice::<Value>(b).ok())
            .unwrap_or(Value::Null);
        *self.0.lock() = Some(json!({ "target": target, "body": body }));
        Ok(())
    }
}
