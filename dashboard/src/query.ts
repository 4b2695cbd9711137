import { useCallback, useEffect, useRef, useState } from "preact/hooks"

/**
 * A small query cache (docs/dashboard.md "Stack"): answers kept by key so that going back to a page
 * shows it at once, refreshed in the background, and polled every `every` ms while the tab is visible
 * (the live updates: a payment made elsewhere shows within the polling period, 1 s on the lists).
 */
const cache = new Map<string, unknown>()
const subscribers = new Map<string, Set<() => void>>()
/**
 * Which session and mode the answers belong to. The keys name pages, not accounts, so an answer asked
 * for before a sign-out, an expired token or a mode switch (polls run every second) is another
 * account's or mode's and must not land in the cache of the next one.
 */
let generation = 0

/** Forgets every answer whose key starts with `prefix` and refetches the ones on screen. */
export const invalidate = (prefix = "") => {
  for (const key of [...cache.keys()]) if (key.startsWith(prefix)) cache.delete(key)
  for (const [key, set] of subscribers) if (key.startsWith(prefix)) set.forEach((f) => f())
}

/** Forgets every answer and drops those still on their way: the session or the mode has changed. */
export const resetQueries = () => {
  generation += 1
  cache.clear()
}

export interface Query<T> {
  data: T | undefined
  error: Error | undefined
  loading: boolean
  refetch: () => void
}

export const useQuery = <T>(key: string | null, load: () => Promise<T>, every?: number): Query<T> => {
  const [data, setData] = useState<T | undefined>(key === null ? undefined : (cache.get(key) as T | undefined))
  const [error, setError] = useState<Error | undefined>(undefined)
  const [loading, setLoading] = useState(key !== null && !cache.has(key))
  const loadRef = useRef(load)
  loadRef.current = load
  const run = useCallback(() => {
    if (key === null) return
    const asked = generation
    loadRef.current().then(
      (value) => {
        if (asked !== generation) return
        cache.set(key, value)
        setData(value)
        setError(undefined)
        setLoading(false)
      },
      (e: Error) => {
        if (asked !== generation) return
        setError(e)
        setLoading(false)
      }
    )
  }, [key])
  useEffect(() => {
    if (key === null) return
    setData(cache.get(key) as T | undefined)
    setLoading(!cache.has(key))
    run()
    const set = subscribers.get(key) ?? new Set()
    set.add(run)
    subscribers.set(key, set)
    const timer =
      every === undefined
        ? undefined
        : setInterval(() => {
            if (document.visibilityState === "visible") run()
          }, every)
    return () => {
      set.delete(run)
      if (timer !== undefined) clearInterval(timer)
    }
  }, [key, run, every])
  return { data, error, loading, refetch: run }
}
