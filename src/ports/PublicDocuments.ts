import type { AccountId, TransactionId } from "../domain/ids.ts"
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
    /**
     * The transaction behind a token and the merchant it belongs to, as a buyer's page or slip names it:
     * trade name and CPF/CNPJ (null when the merchant gave none).
     */
    readonly findWithMerchant: (
      token: string,
      kind: DocumentKind
    ) => Effect.Effect<
      Option.Option<{
        readonly transaction: TransactionRecord
        readonly merchant: {
          readonly name: string
          readonly document: string | null
          readonly accountId: AccountId
        }
      }>
    >
  }
>() {}
