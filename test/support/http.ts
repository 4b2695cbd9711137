export interface Reply<T = any> {
  readonly status: number
  readonly headers: Headers
  readonly body: T
  readonly text: string
}

export interface RequestOptions {
  readonly key?: string
  readonly token?: string
  readonly headers?: Record<string, string>
  /** A raw body sent as is (malformed JSON tests); otherwise `body` is JSON-encoded. */
  readonly raw?: string
}

/** A thin fetch wrapper for tests: JSON in, status + headers + parsed JSON out. */
export const client = (baseUrl: string) => {
  const request = async <T = any>(
    method: string,
    path: string,
    body?: unknown,
    options: RequestOptions = {}
  ): Promise<Reply<T>> => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.key !== undefined) headers["x-api-key"] = options.key
    if (options.token !== undefined) headers["authorization"] = `Bearer ${options.token}`
    const payload = options.raw ?? (body === undefined ? undefined : JSON.stringify(body))
    if (payload !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json"
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(payload === undefined ? {} : { body: payload })
    })
    const text = await response.text()
    let parsed: unknown = undefined
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text }
  }
  return {
    request,
    get: <T = any>(path: string, options?: RequestOptions) => request<T>("GET", path, undefined, options),
    post: <T = any>(path: string, body?: unknown, options?: RequestOptions) => request<T>("POST", path, body, options),
    patch: <T = any>(path: string, body?: unknown, options?: RequestOptions) =>
      request<T>("PATCH", path, body, options),
    del: <T = any>(path: string, options?: RequestOptions) => request<T>("DELETE", path, undefined, options)
  }
}

export type Client = ReturnType<typeof client>

let counter = 0
/** Signs up a fresh account and returns its key, login token and a client. */
/**
 * A merchant with a live key (docs/providers.md "Test and live modes"): signed up (which gives the test
 * key), then `POST /api/api-keys/me/live` with the login token. `key` is the live key; the server must
 * have a live provider configured (LIVE_ACQUIRERS or LIVE_PIX_PROVIDER).
 */
export const liveMerchant = async (api: Client, name = "Loja Teste") => {
  const merchant = await signup(api, name)
  const reply = await api.post("/api/api-keys/me/live", undefined, { token: merchant.token })
  if (reply.status !== 201) throw new Error(`live key failed: ${reply.status} ${reply.text}`)
  return { ...merchant, testKey: merchant.key, key: reply.body.fullKey as string }
}

export const signup = async (api: Client, name = "Loja Teste") => {
  counter += 1
  const email = `merchant-${process.pid}-${Date.now()}-${counter}@example.com`
  const password = "correct horse battery"
  const reply = await api.post("/api/auth/signup", { name, email, password })
  if (reply.status !== 201) throw new Error(`signup failed: ${reply.status} ${reply.text}`)
  const login = await api.post("/api/auth/login", { email, password })
  return {
    accountId: reply.body.account.id as string,
    email,
    password,
    key: reply.body.apiKey.fullKey as string,
    token: login.body.accessToken as string
  }
}

/** Valid CPFs for fixtures (check digits computed). */
export const CPFS = ["52998224725", "11144477735", "39053344705", "15350946056", "86288366757", "71428793860"] as const
