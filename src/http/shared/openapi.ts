import type { OpenApi } from "@effect/platform"
import { reference, SCHEME_ORDER } from "./reference.ts"

type Spec = OpenApi.OpenAPISpec
type Operation = NonNullable<Spec["paths"][string]["get"]>

/**
 * HttpApi documents its built-in decode failure (HttpApiDecodeError) on every endpoint, but our
 * envelope middleware answers every 400 with the BadRequest envelope instead. The document says
 * what the service does: the BadRequest schema, and no 400 on operations that take no input. It also
 * gives every operation its summary and description (reference.ts) and lists the recommended
 * credentials first.
 */
export const describeErrorsTruthfully = (document: Record<string, unknown>): Record<string, unknown> => {
  const spec = document as unknown as Spec
  const badRequest = { $ref: "#/components/schemas/BadRequest" }
  const paths = Object.fromEntries(
    Object.entries(spec.paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, value]) => {
          if (typeof value !== "object" || value === null || !("responses" in value)) return [method, value]
          const operation = value as Operation
          const takesInput = operation.requestBody !== undefined || (operation.parameters?.length ?? 0) > 0
          const { 400: _, ...others } = operation.responses
          const responses = takesInput
            ? {
                ...others,
                400: {
                  description: "Invalid payload or parameter; `message` names the first field, `errors` lists all",
                  content: { "application/json": { schema: badRequest } }
                }
              }
            : others
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
  const { HttpApiDecodeError: _d, Issue: _i, PropertyKey: _p, ...schemas } = spec.components.schemas
  const securitySchemes = Object.fromEntries(
    Object.entries(spec.components.securitySchemes).toSorted(
      ([a], [b]) => SCHEME_ORDER.indexOf(a) - SCHEME_ORDER.indexOf(b)
    )
  )
  return { ...spec, paths, components: { ...spec.components, schemas, securitySchemes } }
}
