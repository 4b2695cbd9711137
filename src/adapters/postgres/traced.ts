import { Effect } from "effect"
import { withSpan } from "../../spans.ts"

/**
 * A repository whose every method runs in a span named `<Repository>.<method>` (the style of the
 * project: named spans on every public method, repositories included), built only when tracing is on.
 */
export const traced = <S extends object>(name: string, service: S): S =>
  Object.fromEntries(
    Object.entries(service).map(([method, value]) => [
      method,
      typeof value === "function"
        ? (...args: Array<unknown>) => {
            const result = (value as (...a: Array<unknown>) => unknown)(...args)
            return Effect.isEffect(result) ? withSpan(`${name}.${method}`)(result) : result
          }
        : Effect.isEffect(value)
          ? withSpan(`${name}.${method}`)(value)
          : value
    ])
  ) as S
