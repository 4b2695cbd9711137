import { Context } from "effect"
import type { RecordToRead } from "../../ports/Admission.ts"

/**
 * How an interface writes its error body (CONTRACT §4): `plain` for /api, `successFlag` for
 * /public/v1, which adds `success: false`. Annotated on each interface's HttpApi, read from the route.
 */
export class ErrorBody extends Context.Tag("ErrorBody")<ErrorBody, "plain" | "successFlag">() {}

/**
 * The resource a route belongs to for restricted keys' scopes (`<resource>:read|write`), annotated on
 * the group or, where one group serves several resources, on the endpoint.
 */
export class ScopeResource extends Context.Tag("ScopeResource")<ScopeResource, string>() {}

/**
 * A route that honours `Idempotency-Key` (CONTRACT §6): its key is claimed with the request's admission,
 * in the same round trip (issue 10), and the handler's `idempotentPost` takes the claim over.
 */
export class Idempotent extends Context.Tag("Idempotent")<Idempotent, boolean>() {}

/**
 * A route whose body names the order it pays, by this field (`orderId` on /api's process): once the request
 * is admitted, its admission reads that order in the same round trip (KeyAdmission's `order`), and the
 * charge's check before any provider is asked costs no statement of its own (issue 22, docs/performance.md
 * "The order read with the admission").
 */
export class PaysOrder extends Context.Tag("PaysOrder")<PaysOrder, string>() {}

/**
 * A route that reads one record by the id in its path, named by this parameter: once the request is
 * admitted, its admission reads that record in the same round trip (KeyAdmission's `read`), and the
 * handler's read of it costs no statement of its own (issue 22, docs/performance.md "Admissions in batches").
 */
export class ReadsAhead extends Context.Tag("ReadsAhead")<
  ReadsAhead,
  { readonly kind: RecordToRead["kind"]; readonly param: string }
>() {}
