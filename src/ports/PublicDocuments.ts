import type { TransactionId } from "../domain/ids.ts"
import { Context, type Effect, type Option } from "effect"
import type { TransactionRecord } from "../domain/transaction.ts"

export type DocumentKind = "pix_qr" | "boleto_pdf" | "checkout"

/**
 * Unguessable tokens behind qrCodeUrl and pdfUrl. The one lookup not scoped by account: the token
 * itself (256 random bits) is the credential a buyer's browser holds.
 */
export class PublicDocuments extends Context.Tag("PublicDocuments")<
  PublicDocuments,
  {
    /** The documents of a new transaction, in one write. */
    readonly create: (
      transactionId: TransactionId,
      documents: ReadonlyArray<{ readonly token: string; readonly kind: DocumentKind }>
    ) => Effect.Effect<void>
    readonly find: (token: string, kind: DocumentKind) => Effect.Effect<Option.Option<TransactionRecord>>
    /** The transaction behind a checkout token and the trade name of the merchant it belongs to. */
    readonly findCheckout: (
      token: string
    ) => Effect.Effect<Option.Option<{ readonly transaction: TransactionRecord; readonly merchantName: string }>>
  }
>() {}
