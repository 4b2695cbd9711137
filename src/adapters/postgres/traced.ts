import { Effect } from "effect"

/**
 * A repository whose every method runs in a span named `<Repository>.<method>` (the style of the
 * project: named spans on every public method, repositories included).
 */
export const traced = <S extends object>(name: string, service: S): S =>
  Object.fromEntries(
    Object.entries(service).map(([method, value]) => [
      method,
      typeof value === "function"
        ? (...args: Array<unknown>) => {
            const result = (value as (...a: Array<unknown>) => unknown)(...args)
            return Effect.isEffect(result) ? Effect.withSpan(result, `${name}.${method}`) : result
          }
        : Effect.isEffect(value)
          ? Effect.withSpan(value, `${name}.${method}`)
          : value
    ])
  ) as S
