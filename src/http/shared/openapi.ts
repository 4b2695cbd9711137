import { type OpenApi, OpenApiJsonSchema } from "@effect/platform"
import { BadRequest, PayloadTooLarge, UnsupportedMediaType } from "./errors.ts"
import { reference, SCHEME_ORDER } from "./reference.ts"

type Spec = OpenApi.OpenAPISpec
type Operation = NonNullable<Spec["paths"][string]["get"]>
type Responses = Operation["responses"]
type JsonSchema = Spec["components"]["schemas"][string]

/**
 * Where /public/v1 is served: its error body adds `success: false` (the `successFlag` ErrorBody that
 * Api.ts annotates on V1Api; envelope.ts `errorBody`). test/api.openapi-truth.test.ts checks that the
 * operations under it are exactly the routes with that annotation.
 */
const V1_PREFIX = "/public/v1/"

/** The service's own API, where acceptQuery (query.ts) refuses a query parameter a route does not declare. */
const isApiPath = (path: string) => path.startsWith("/api/") || path.startsWith(V1_PREFIX)

const ref = (name: string) => `#/components/schemas/${name}`
const nameOf = (pointer: string) => (pointer.startsWith(ref("")) ? pointer.slice(ref("").length) : undefined)

/** An error envelope of errors.ts (CONTRACT §4) as the document writes it: these get a v1 variant. */
const isEnvelope = (schema: JsonSchema | undefined) => {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties
  return properties?.["statusCode"] !== undefined && properties["error"] !== undefined
}

/** The /public/v1 variant of an envelope: the same fields after `success: false`, which is required. */
const withSuccessFlag = (schema: JsonSchema): JsonSchema => {
  const s = schema as { properties: Record<string, unknown>; required?: ReadonlyArray<string> }
  return {
    ...schema,
    required: ["success", ...(s.required ?? [])],
    properties: { success: { type: "boolean", const: false }, ...s.properties }
  } as unknown as JsonSchema
}

/**
 * Copies `value` without the `$id`s Effect gives its built-in schemas (`/schemas/unknown` for every
 * `Schema.Unknown`, annotated or not): different subschemas under one `$id` make the document
 * impossible to compile for a JSON Schema 2020-12 validator, and the `$id` says nothing a reader needs.
 */
const withoutBuiltinIds = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutBuiltinIds)
  if (value === null || typeof value !== "object") return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, v]) => !(key === "$id" && typeof v === "string" && v.startsWith("/schemas/")))
      .map(([key, v]) => [key, withoutBuiltinIds(v)])
  )
}

/** Rewrites every reference to an envelope into its v1 variant's, noting which variants are needed. */
const toV1Refs = (value: unknown, envelopes: ReadonlySet<string>, needed: Set<string>): unknown => {
  if (Array.isArray(value)) return value.map((v) => toV1Refs(v, envelopes, needed))
  if (value === null || typeof value !== "object") return value
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => {
      const name = key === "$ref" && typeof v === "string" ? nameOf(v) : undefined
      if (name !== undefined && envelopes.has(name)) {
        needed.add(name)
        return [key, ref(`V1${name}`)]
      }
      return [key, toV1Refs(v, envelopes, needed)]
    })
  )
}

/** A GET or HEAD body is never read (acceptBody); any other method's is, declared or not. */
const readsBody = (method: string) => method !== "get" && method !== "head"

/**
 * What the 400 of an operation covers. Every request passes the envelope middleware's checks before any
 * route (envelope.ts): text in the URL that is not Unicode (acceptUrl, every route), a query parameter the
 * route does not declare (acceptQuery, /api and /public/v1), a body that is not UTF-8 or holds a NUL or a
 * lone surrogate (acceptBody, every method but GET and HEAD). So every operation can answer 400, those
 * that take no input included.
 */
const badRequestDescription = (path: string, method: string, takesInput: boolean) => {
  if (takesInput) return "Invalid payload or parameter; `message` names the first field, `errors` lists all"
  const text = `${readsBody(method) ? "in the URL or body" : "in the URL"} that is not Unicode (NUL, invalid UTF-8)`
  return isApiPath(path)
    ? `A query parameter the operation does not take, or text ${text}; \`message\` names it`
    : `Text ${text}; \`message\` names it`
}

/**
 * HttpApi documents its built-in decode failure (HttpApiDecodeError) on every endpoint, but our envelope
 * middleware answers every 400 with the BadRequest envelope instead. The document says what the service
 * answers, status by status:
 * - 400 on every operation, with the BadRequest envelope (see `badRequestDescription`);
 * - 413 (over 1 MiB) and 415 (not JSON) on every operation whose body the middleware reads, that is every
 *   method but GET and HEAD, whether the operation declares a body or not (acceptBody, body.ts); never on
 *   a GET, whose body is not read (v1's security middleware declares 415 for all its routes);
 * - on /public/v1, every error envelope as a `V1…` variant that adds the required `success: false`.
 * It also drops Effect's `$id`s of built-in schemas (`withoutBuiltinIds`), gives every operation its
 * summary and description (reference.ts) and lists the recommended credentials first.
 */
export const describeErrorsTruthfully = (document: Record<string, unknown>): Record<string, unknown> => {
  const spec = withoutBuiltinIds(document) as Spec
  const { HttpApiDecodeError: _d, Issue: _i, PropertyKey: _p, ...generated } = spec.components.schemas
  // The envelopes no route declares but the middleware answers with (413), and 415, which only v1 declares.
  const schemas: Record<string, JsonSchema> = { ...generated }
  const badRequest = OpenApiJsonSchema.makeWithDefs(BadRequest, { defs: schemas })
  const payloadTooLarge = OpenApiJsonSchema.makeWithDefs(PayloadTooLarge, { defs: schemas })
  const unsupportedMediaType = OpenApiJsonSchema.makeWithDefs(UnsupportedMediaType, { defs: schemas })
  const response = (schema: OpenApiJsonSchema.JsonSchema, description: string) => ({
    description,
    content: { "application/json": { schema } }
  })
  const descriptionOf = (name: string) => (schemas[name] as { description?: string }).description ?? "Error"
  const envelopes = new Set(Object.keys(schemas).filter((name) => isEnvelope(schemas[name])))
  const v1Needed = new Set<string>()
  const paths = Object.fromEntries(
    Object.entries(spec.paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, value]) => {
          if (typeof value !== "object" || value === null || !("responses" in value)) return [method, value]
          const operation = value as Operation
          const takesInput = operation.requestBody !== undefined || (operation.parameters?.length ?? 0) > 0
          const { 400: _400, 413: _413, 415: _415, ...others } = operation.responses
          const plain: Responses = {
            ...others,
            400: response(badRequest, badRequestDescription(path, method, takesInput)),
            ...(readsBody(method)
              ? {
                  413: response(payloadTooLarge, descriptionOf("PayloadTooLarge")),
                  415: response(unsupportedMediaType, descriptionOf("UnsupportedMediaType"))
                }
              : {})
          }
          const responses = path.startsWith(V1_PREFIX)
            ? (Object.fromEntries(
                Object.entries(plain).map(([status, answer]) => [
                  status,
                  Number(status) >= 400 ? toV1Refs(answer, envelopes, v1Needed) : answer
                ])
              ) as Responses)
            : plain
          const words = reference[operation.operationId]
          const security = operation.security?.toSorted(
            (a, b) => SCHEME_ORDER.indexOf(Object.keys(a)[0]!) - SCHEME_ORDER.indexOf(Object.keys(b)[0]!)
          )
          return [
            method,
            {
              ...operation,
              summary: operation.summary ?? words?.summary,
              description: operation.description ?? words?.description,
              ...(security === undefined ? {} : { security }),
              responses
            }
          ]
        })
      )
    ])
  )
  for (const name of [...v1Needed].sort()) schemas[`V1${name}`] = withSuccessFlag(schemas[name]!)
  const securitySchemes = Object.fromEntries(
    Object.entries(spec.components.securitySchemes).toSorted(
      ([a], [b]) => SCHEME_ORDER.indexOf(a) - SCHEME_ORDER.indexOf(b)
    )
  )
  return { ...spec, paths, components: { ...spec.components, schemas, securitySchemes } }
}
