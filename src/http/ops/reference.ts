import { HttpApi, HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"

/**
 * The API reference page at /docs (docs/api.md "Reference"), built on its first request.
 * HttpApiScalar inlines the Scalar script (3.4 MB of source) in the module that serves it: imported at
 * start, every process held it in its heap for a page few open (issue 22 §3, docs/performance.md
 * "Memory of npm start"). The route is the same; the module that holds the script loads on first use.
 */
export const ReferenceLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const api = yield* HttpApi.Api
    const page = yield* Effect.cached(
      Effect.flatMap(
        Effect.promise(() => import("./referencePage.ts")),
        (module) => module.referencePage(api)
      )
    )
    yield* router.get("/docs", page)
  })
)
