/**
 * Runs `start` with `env` set in this process's environment, then puts back what was there: the deployment's
 * variables (an acquirer's credentials, LIVE_*) for an in-process service, which reads them as it starts.
 */
export const withEnv = async <T>(env: Record<string, string>, start: () => Promise<T>) => {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]))
  Object.assign(process.env, env)
  try {
    return await start()
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
}
