import { Context, Data, type Effect } from "effect"

/** One delivery attempt of one event to one endpoint. */
export interface WebhookRequest {
  readonly url: string
  /** Stable across retries of the same event: sent as `webhook-id` so receivers can deduplicate. */
  readonly deliveryId: string
  /** Unix seconds, signed into `webhook-timestamp`. */
  readonly timestamp: number
  /** Exact bytes that are signed and sent (already-serialized JSON). */
  readonly body: string
  /** The endpoint's `whsec_...` secret. */
  readonly secret: string
  /**
   * The secret being rotated out, while its overlap lasts: both signatures are sent, space-separated in
   * `webhook-signature` as Standard Webhooks allows, so receivers verify with either (docs/webhooks.md).
   */
  readonly previousSecret?: string | undefined
}

/** What an attempt sent and what came back, kept on the delivery record (docs/webhooks.md "Deliveries"). */
export interface Exchange {
  /** The headers as sent (signature included); never a secret. */
  readonly requestHeaders: Readonly<Record<string, string>>
  /** The first 4 KB of the response body (UTF-8, cut at a character); null when nothing answered. */
  readonly responseBody: string | null
}

export type WebhookOutcome = (
  | { readonly _tag: "Delivered"; readonly httpStatus: 200; readonly durationMs: number }
  /** Any non-200 answer, including 3xx: redirects are never followed. */
  | { readonly _tag: "Rejected"; readonly httpStatus: number; readonly durationMs: number }
  /** No usable answer: refused URL/address, DNS failure, connection error, TLS error, timeout. */
  | { readonly _tag: "Unreachable"; readonly reason: string; readonly durationMs: number }
) &
  Partial<Exchange>

/**
 * Delivers signed webhooks. `send` never fails: every attempt ends in an outcome,
 * so retry/backoff policy lives in the caller, not in transport errors.
 */
export class WebhookSender extends Context.Tag("WebhookSender")<
  WebhookSender,
  {
    readonly send: (request: WebhookRequest) => Effect.Effect<WebhookOutcome>
    /** A new signing secret, `whsec_<base64 of 32 random bytes>` (Standard Webhooks). */
    readonly newSecret: Effect.Effect<string>
    /** Whether a URL may be registered (public https unless private URLs are allowed); `send` checks again. */
    readonly vet: (url: string) => Effect.Effect<void, WebhookUrlRefused>
  }
>() {}

/** Why a webhook URL is refused: the whole message, naming the url ("url must use https"), shown as it is. */
export class WebhookUrlRefused extends Data.TaggedError("WebhookUrlRefused")<{ readonly reason: string }> {}
