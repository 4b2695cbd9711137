/**
 * Verifying a webhook the gateway sent, with the `standardwebhooks` package: the secret is the
 * account's `whsec_…` (POST /api/webhooks/upsert); the body must be the exact bytes received.
 * Answer 200 only after the event is stored or queued; anything else makes the gateway retry.
 */
import { Webhook } from "standardwebhooks"

export interface ReceivedWebhook {
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
}

/** The verified event, or an Error when the signature, the timestamp or the id does not check out. */
export const verifyWebhook = (secret: string, received: ReceivedWebhook): unknown => {
  const webhook = new Webhook(secret)
  // Throws WebhookVerificationError on a bad signature or a timestamp older than 5 minutes.
  return webhook.verify(received.body, {
    "webhook-id": received.headers["webhook-id"] ?? "",
    "webhook-timestamp": received.headers["webhook-timestamp"] ?? "",
    "webhook-signature": received.headers["webhook-signature"] ?? ""
  })
}
