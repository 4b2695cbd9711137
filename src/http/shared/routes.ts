import { HttpApi } from "@effect/platform"

export interface RouteTemplate {
  readonly method: string
  readonly path: string
  readonly pattern: RegExp
}

/**
 * The (method, path template) pairs of the API, to label metrics by template rather than by raw URL
 * (bounded cardinality) and to tell a wrong method (405) from an unknown path (404).
 */
export const routeTable = (api: HttpApi.HttpApi.Any, extra: ReadonlyArray<readonly [string, string]> = []) => {
  const routes: Array<RouteTemplate> = []
  const add = (method: string, path: string) => {
    const source = path
      .split("/")
      .map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/")
    routes.push({ method, path, pattern: new RegExp(`^${source}/?$`) })
  }
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => add(endpoint.method, endpoint.path)
  })
  for (const [method, path] of extra) add(method, path)
  const matching = (path: string) => routes.filter((r) => r.pattern.test(path))
  return {
    /** The template serving this request, or undefined when no route matches. */
    template: (method: string, path: string) => {
      const candidates = matching(path)
      return (candidates.find((r) => r.method === method) ?? candidates[0])?.path
    },
    /** Methods allowed on this path (empty when the path is unknown). */
    allowedMethods: (path: string) => [...new Set(matching(path).map((r) => r.method))]
  }
}
