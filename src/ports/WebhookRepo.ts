import type { AccountId } from "../domain/ids.ts"
import { Context, type Effect, type Option, type Stream } from "effect"
import type { FrozenEvent, StoredEvent } from "../domain/events.ts"
import type { Delivery, DeliveryDetail, DeliveryStatus, RotatedWebhook, Webhook } from "../domain/webhook.ts"

/** What a delivery attempt needs: the stored event and where and how to send it now. */
export interface DeliveryTarget {
  readonly deliveryId: string
  readonly accountId: AccountId
  readonly event: string
  readonly status: DeliveryStatus
  /** Every attempt made, manual resends' included. */
  readonly attempts: number
  /**
   * The attempts made before the current retry schedule began: 0, or `attempts` at the last manual resend,
   * which starts the schedule again (docs/webhooks.md "Deliveries").
   */
  readonly scheduleFrom: number
  /** The event as recorded; its body is built for its interface at delivery (EventPayloads). */
  readonly stored: StoredEvent | FrozenEvent
  /** The account's webhook now (None: deleted, the delivery is dropped). */
  readonly webhook: Option.Option<{
    readonly url: string
    readonly secret: string
    /** The rotated-out secret while its overlap lasts. */
    readonly previousSecret: string | null
  }>
}

export interface AttemptRecord {
  readonly status: DeliveryStatus
  readonly attempts: number
  readonly httpStatus: number | null
  readonly attemptedAt: Date
  readonly nextRetryAt: Date | null
  readonly lastError: string | null
  /** Where the attempt was sent: the webhook's URL then (absent when nothing was sent; the record keeps its own). */
  readonly url?: string | null
  /** What the attempt sent and got back (null when it sent nothing). */
  readonly requestHeaders?: Readonly<Record<string, string>> | null
  readonly requestBody?: string | null
  readonly responseBody?: string | null
  readonly latencyMs?: number | null
}

export class WebhookRepo extends Context.Tag("WebhookRepo")<
  WebhookRepo,
  {
    readonly upsert: (
      accountId: AccountId,
      url: string,
      newSecret: string
    ) => Effect.Effect<{ readonly webhook: Webhook; readonly created: boolean }>
    readonly find: (accountId: AccountId) => Effect.Effect<Option.Option<Webhook>>
    /** Deletes the webhook and drops its pending deliveries; false when there was none. */
    readonly remove: (accountId: AccountId) => Effect.Effect<boolean>
    /** The account's deliveries, newest first, read page by page. */
    readonly deliveries: (
      accountId: AccountId,
      filter: { readonly status?: DeliveryStatus | undefined; readonly event?: string | undefined }
    ) => Stream.Stream<Delivery>
    readonly findDelivery: (accountId: AccountId, deliveryId: string) => Effect.Effect<Option.Option<Delivery>>
    /** Locks the delivery row for the attempt's bookkeeping. */
    readonly target: (deliveryId: string) => Effect.Effect<Option.Option<DeliveryTarget>>
    /** Records an attempt on a delivery still PENDING; false when it was dropped or finished meanwhile. */
    readonly recordAttempt: (deliveryId: string, attempt: AttemptRecord) => Effect.Effect<boolean>
    /** Back to PENDING for a manual resend, its retry schedule started again (`attempts` kept). */
    readonly markPending: (accountId: AccountId, deliveryId: string) => Effect.Effect<Option.Option<Delivery>>
    readonly deleteHistoryOlderThan: (days: number) => Effect.Effect<number>
    /** One delivery with its last request and response. */
    readonly deliveryDetail: (accountId: AccountId, deliveryId: string) => Effect.Effect<Option.Option<DeliveryDetail>>
    /**
     * Every FAILED delivery of the account created at or after `since` back to PENDING, each with its job
     * now and its retry schedule started again, in one statement; how many.
     */
    readonly resendFailed: (accountId: AccountId, since: Date) => Effect.Effect<number>
    /** A new secret; the current one keeps signing until `overlapUntil`. None without a webhook. */
    readonly rotateSecret: (
      accountId: AccountId,
      newSecret: string,
      overlapUntil: Date
    ) => Effect.Effect<Option.Option<RotatedWebhook>>
    /**
     * Records the event (a frozen body) and, when the account has a webhook, its delivery and job, in one
     * statement; the delivery, or None without a webhook.
     */
    readonly recordTestEvent: (
      accountId: AccountId,
      ids: { readonly eventId: string; readonly deliveryId: string },
      name: string,
      body: unknown
    ) => Effect.Effect<Option.Option<Delivery>>
  }
>() {}
