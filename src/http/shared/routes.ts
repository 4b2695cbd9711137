import { HttpApi } from "@effect/platform"
import { Context, Option, SchemaAST } from "effect"
import { ErrorBody, Idempotent, PaysOrder, ReadsAhead, ScopeResource } from "./annotations.ts"

export interface RouteTemplate {
  readonly method: string
  readonly path: string
  readonly pattern: RegExp
  readonly errorBody: "plain" | "successFlag"
  /** The scope resource of restricted keys; "other" for routes that name none. */
  readonly resource: string
  /** It honours `Idempotency-Key` (annotated `Idempotent`). */
  readonly idempotent: boolean
  /** The body field naming the order it pays (annotated `PaysOrder`), read with the admission. */
  readonly paysOrder: string | undefined
  /** The record it reads by a path parameter (annotated `ReadsAhead`), read with the admission. */
  readonly readsAhead: ReadsAhead["Type"] | undefined
  /** The query parameters it declares (its urlParams schema's keys); undefined for routes outside the API. */
  readonly query: ReadonlyArray<string> | undefined
}

/**
 * The (method, path template) pairs of the API, to label metrics by template rather than by raw URL
 * (bounded cardinality) and to tell a wrong method (405) from an unknown path (404).
 */
export const routeTable = (api: HttpApi.HttpApi.Any, extra: ReadonlyArray<readonly [string, string]> = []) => {
  const routes: Array<RouteTemplate> = []
  const add = (
    method: string,
    path: string,
    annotations: Context.Context<never> = Context.empty(),
    query: ReadonlyArray<string> | undefined = undefined
  ) => {
    const source = path
      .split("/")
      .map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/")
    routes.push({
      method,
      path,
      pattern: new RegExp(`^${source}/?$`),
      errorBody: Option.getOrElse(Context.getOption(annotations, ErrorBody), () => "plain" as const),
      resource: Option.getOrElse(Context.getOption(annotations, ScopeResource), () => "other"),
      idempotent: Option.getOrElse(Context.getOption(annotations, Idempotent), () => false),
      paysOrder: Option.getOrUndefined(Context.getOption(annotations, PaysOrder)),
      readsAhead: Option.getOrUndefined(Context.getOption(annotations, ReadsAhead)),
      query
    })
  }
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, mergedAnnotations }) =>
      add(
        endpoint.method,
        endpoint.path,
        mergedAnnotations,
        Option.match(endpoint.urlParamsSchema, {
          onNone: () => [],
          onSome: (schema) =>
            SchemaAST.getPropertySignatures(SchemaAST.encodedAST(schema.ast)).map((p) => String(p.name))
        })
      )
  })
  for (const [method, path] of extra) add(method, path)
  // A request asks several times (envelope, security, query check) and each asked every route's pattern:
  // the answer per path is kept, for a bounded number of paths (ids make most paths distinct).
  const matched = new Map<string, ReadonlyArray<RouteTemplate>>()
  const matching = (path: string) => {
    const known = matched.get(path)
    if (known !== undefined) return known
    const found = routes.filter((r) => r.pattern.test(path))
    if (matched.size >= 1_000) matched.clear()
    matched.set(path, found)
    return found
  }
  return {
    /** The template serving this request, or undefined when no route matches. */
    template: (method: string, path: string) => {
      const candidates = matching(path)
      return (candidates.find((r) => r.method === method) ?? candidates[0])?.path
    },
    /** The route serving this request, or undefined when no route matches. */
    route: (method: string, path: string) => {
      const candidates = matching(path)
      return candidates.find((r) => r.method === method) ?? candidates[0]
    },
    /**
     * The error body for a request: its route's, or for an unknown path that of the routes sharing the
     * longest prefix with it (an unknown /public/v1 path still gets the v1 body).
     */
    errorBody: (path: string) => {
      const exact = matching(path)[0]
      if (exact) return exact.errorBody
      let best: RouteTemplate | undefined
      let bestLength = 0
      for (const r of routes) {
        let n = 0
        while (n < r.path.length && n < path.length && r.path[n] === path[n]) n++
        if (n > bestLength) [best, bestLength] = [r, n]
      }
      return best?.errorBody ?? "plain"
    },
    /** Methods allowed on this path (empty when the path is unknown). */
    allowedMethods: (path: string) => [...new Set(matching(path).map((r) => r.method))]
  }
}
