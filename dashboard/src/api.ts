/** The dashboard's calls to /api (docs/dashboard.md "API"): the login JWT and the chosen mode on each. */

const TOKEN = "gw.token"
const MODE = "gw.mode"

export type Mode = "test" | "live"

export const session = {
  token: () => sessionStorage.getItem(TOKEN),
  signIn: (token: string) => sessionStorage.setItem(TOKEN, token),
  signOut: () => sessionStorage.removeItem(TOKEN),
  mode: (): Mode => (localStorage.getItem(MODE) === "live" ? "live" : "test"),
  setMode: (mode: Mode) => localStorage.setItem(MODE, mode)
}

/** An answer that is not 2xx: the envelope's message and the fields it names. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly fields: ReadonlyArray<{ field: string; message: string }> = []
  ) {
    super(message)
  }
}

const listeners = new Set<() => void>()
/** Called when a token is refused (expired after 15 minutes): the app shows the login page. */
export const onSignedOut = (listener: () => void) => {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

const liveListeners = new Set<() => void>()
/**
 * Called when the API refuses live mode (400 `mode_unavailable`: the operator has configured no live
 * rail, docs/dashboard.md "Mode"): the app says so instead of each page showing the refusal.
 */
export const onModeUnavailable = (listener: () => void) => {
  liveListeners.add(listener)
  return () => liveListeners.delete(listener)
}

const headers = (json: boolean): Record<string, string> => {
  const h: Record<string, string> = { accept: "application/json", "x-gateway-mode": session.mode() }
  const token = session.token()
  if (token) h["authorization"] = `Bearer ${token}`
  if (json) h["content-type"] = "application/json"
  return h
}

/** `sent` is the token the request carried: a late 401 of an earlier session must not sign out the next. */
const fail = async (response: Response, sent: string | null): Promise<never> => {
  const body = (await response.json().catch(() => ({}))) as {
    message?: string
    code?: string
    errors?: Array<{ field: string; message: string }>
  }
  if (response.status === 401 && sent !== null && session.token() === sent) {
    session.signOut()
    listeners.forEach((l) => l())
  }
  if (response.status === 400 && body.code === "mode_unavailable") liveListeners.forEach((l) => l())
  throw new ApiError(response.status, body.message ?? response.statusText, body.code ?? "error", body.errors ?? [])
}

export const request = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const sent = session.token()
  const response = await fetch(path, {
    method,
    headers: headers(body !== undefined),
    cache: "no-store",
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  if (!response.ok) return fail(response, sent)
  return (response.status === 204 ? undefined : await response.json()) as T
}

export const get = <T>(path: string) => request<T>("GET", path)
export const post = <T>(path: string, body?: unknown) => request<T>("POST", path, body)
export const patch = <T>(path: string, body: unknown) => request<T>("PATCH", path, body)

/**
 * Saves a CSV export: the server streams it, the browser keeps it as a file. The token goes in the
 * Authorization header, never in a URL (a URL lands in logs and history).
 */
export const download = async (path: string, filename: string) => {
  const sent = session.token()
  const response = await fetch(path, { headers: headers(false), cache: "no-store" })
  if (!response.ok) return fail(response, sent)
  const url = URL.createObjectURL(await response.blob())
  const a = document.createElement("a")
  a.href = url
  a.download = filename
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** A query string of the set values only. */
export const query = (params: Record<string, string | number | undefined | null>) => {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v))
  const s = q.toString()
  return s === "" ? "" : `?${s}`
}

export interface Transaction {
  id: string
  method: "PIX" | "BOLETO" | "CARD"
  status: string
  amount: number
  amountTotal: number
  refundedAmount: number
  refundable: number
  fee: number
  installments: number | null
  buyer: { name: string; document: string } | null
  card: { brand: string; last4: string } | null
  metadata: Record<string, unknown> | null
  declineCode: string | null
  antifraud: { decision: string; score: number; reason: string | null; status: string } | null
  createdAt: string
  paidAt: string | null
}

export interface Page<T> {
  data: T[]
  nextCursor: string | null
}

export interface TimelineEntry {
  at: string
  kind: string
  title: string
  detail: Record<string, unknown>
}

export interface Figures {
  count: number
  paid: number
  refused: number
  gross: number
  refunded: number
  fees: number
  net: number
  approvalRate: number | null
}

export interface Summary {
  from: string
  to: string
  totals: Figures
  byMethod: Array<Figures & { method: string }>
  byDay: Array<Figures & { day: string; method: string }>
}

export interface Balance {
  available: number
  pending: number
  reserved: number
  updatedAt: string
}

/** A webhook delivery (docs/webhooks.md "Deliveries"). */
export interface Delivery {
  deliveryId: string
  event: string
  status: "SUCCESS" | "FAILED" | "PENDING"
  httpStatus: number | null
  attemptedAt: string | null
  nextRetryAt: string | null
  attempts: number
  createdAt: string
}

/** One delivery with what its last attempt sent and got back. */
export interface DeliveryDetail extends Omit<Delivery, "httpStatus"> {
  eventId: string
  url: string
  request: { headers: Record<string, string>; body: string } | null
  response: { status: number | null; body: string | null; latencyMs: number | null } | null
  error: string | null
}

export interface EventRecord {
  id: string
  type: string
  transactionId: string | null
  createdAt: string
  payload: unknown
}
