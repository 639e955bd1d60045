//! Typed tools (feature `serde`): one Rust definition gives the handler, its input and output
//! JSON Schemas (2020-12, generated with schemars), argument checking and the result.
//!
//! The arguments are deserialised into the handler's type from their span in the frame (a
//! mismatch is `-32602` naming what does not fit); the result is serialised once and sent
//! both as `structuredContent` and as a text block with the same JSON (which the
//! specification asks for, and which clients before 2025-06-18, which have no
//! `structuredContent`, read).
//! An inline handler also gets the result's [`Output`], to add content blocks of its own (an
//! image, say) ahead of that text.
//!
//! ```
//! use janus_server_core::{Ctx, RpcError, Server};
//! use janus_server_core::tools::Output;
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct AddArgs { a: i64, b: i64 }
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Sum { sum: i64 }
//!
//! let server = Server::builder("calc", "1.0")
//!     .typed_tool("add", "Adds two integers.", |_: &Ctx<'_>, args: AddArgs, _: &mut Output<'_>| {
//!         let sum = args.a.checked_add(args.b).ok_or_else(|| RpcError::invalid_params("overflow"))?;
//!         Ok(Sum { sum })
//!     })
//!     .build()
//!     .unwrap();
//! # let _ = server;
//! ```

use crate::api::ctx::{Context, Ctx};
use crate::api::halt::Halt;
use crate::api::tools::{
    Args, AsyncTool, Output, SpecError, Tool, ToolFuture, ToolResult, ToolSpec,
};
use janus_model::json::{Json, RpcError};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::future::Future;
use std::marker::PhantomData;

/// The spec of a tool whose arguments are an `A` and whose result is an `R`.
///
/// # Errors
///
/// [`SpecError`] when a schema is not an object schema (arguments and results must be
/// objects: a struct, or a map).
pub fn spec<A: JsonSchema, R: JsonSchema>(
    name: &str,
    description: &str,
) -> Result<ToolSpec, SpecError> {
    let schema = |s: schemars::Schema| {
        serde_json::to_string(&s).map_err(|e| SpecError {
            tool: name.to_owned(),
            reason: format!("its schema has no JSON form: {e}"),
        })
    };
    let input = schema(schemars::schema_for!(A))?;
    let output = schema(schemars::schema_for!(R))?;
    ToolSpec::new(name, description, &input)?.output_schema(&output)
}

/// The result of a typed handler, as its tool answers it.
fn answer<R: Serialize>(r: &R) -> Result<Json, RpcError> {
    // A result that has no JSON form is the handler's fault, not the client's.
    Json::to_json(r).map_err(|_| RpcError::internal())
}

/// An inline tool from `Fn(&Ctx, A, &mut Output) -> Result<R, Halt>`.
pub struct Typed<A, R, F> {
    f: F,
    types: PhantomData<fn(A) -> R>,
}

impl<A, R, F> Typed<A, R, F> {
    /// Wraps `f`.
    pub const fn new(f: F) -> Self {
        Self {
            f,
            types: PhantomData,
        }
    }
}

impl<A, R, F> Tool for Typed<A, R, F>
where
    A: DeserializeOwned + 'static,
    R: Serialize + 'static,
    F: Fn(&Ctx<'_>, A, &mut Output<'_>) -> Result<R, Halt> + Send + Sync + 'static,
{
    fn call(&self, ctx: &Ctx<'_>, args: Args<'_>, out: &mut Output<'_>) -> Result<(), Halt> {
        let r = (self.f)(ctx, args.parse()?, out)?;
        let json = answer(&r)?;
        out.text(json.as_str()).structured(json);
        Ok(())
    }
}

/// An asynchronous tool from `Fn(Context, A) -> impl Future<Output = Result<R, Halt>>`.
pub struct TypedAsync<A, R, F> {
    f: F,
    types: PhantomData<fn(A) -> R>,
}

impl<A, R, F> TypedAsync<A, R, F> {
    /// Wraps `f`.
    pub const fn new(f: F) -> Self {
        Self {
            f,
            types: PhantomData,
        }
    }
}

impl<A, R, F, Fut> AsyncTool for TypedAsync<A, R, F>
where
    A: DeserializeOwned + 'static,
    R: Serialize + 'static,
    F: Fn(Context, A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, Halt>> + Send + 'static,
{
    fn call(&self, ctx: &Ctx<'_>, args: Args<'_>) -> Result<ToolFuture, Halt> {
        // NB. The arguments are checked before any work is started.
        let work = (self.f)(ctx.to_owned(), args.parse()?);
        Ok(Box::pin(async move {
            let json = answer(&work.await?)?;
            Ok(ToolResult::text(json.as_str()).with_structured(json))
        }))
    }
}
