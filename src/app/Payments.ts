import { randomBytes } from "node:crypto"
import { Clock, Effect, Either, Option } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { Metrics } from "../adapters/metrics/PrometheusMetrics.ts"
import { Conflict, NotFound, Unprocessable, ValidationFailed } from "../domain/errors.ts"
import { isPayable } from "../domain/order.ts"
import { type PaymentCommand, type ProcessRequest, validateProcess } from "../domain/payment.ts"
import { addDaysInSaoPaulo } from "../domain/time.ts"
import type { TransactionRecord } from "../domain/transaction.ts"
import { AccountRepo } from "../ports/AccountRepo.ts"
import { Acquirer, type CardData } from "../ports/Acquirer.ts"
import { Antifraud } from "../ports/Antifraud.ts"
import { BoletoProvider } from "../ports/BoletoProvider.ts"
import { CardVault } from "../ports/CardVault.ts"
import { CustomerRepo } from "../ports/CustomerRepo.ts"
import { Ids } from "../ports/Ids.ts"
import { JobScheduler } from "../ports/JobScheduler.ts"
import { OrderRepo } from "../ports/OrderRepo.ts"
import { Outbox } from "../ports/Outbox.ts"
import { PixProvider } from "../ports/PixProvider.ts"
import { PublicDocuments } from "../ports/PublicDocuments.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Transactional } from "../ports/Transactional.ts"

const PIX_CITY = "SAO PAULO"

/** 256 random bits: the credential behind a public QR or PDF URL. */
const documentToken = () => randomBytes(32).toString("base64url")

/**
 * POST /api/payment-gateway/process: charges an order by PIX, boleto or card. `transactionId` is
 * reserved by the caller (the idempotency record), so a retry after a crash resumes the same
 * transaction and the acquirer sees the same idempotency key.
 */
export class Payments extends Effect.Service<Payments>()("Payments", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const accounts = yield* AccountRepo
    const orders = yield* OrderRepo
    const customers = yield* CustomerRepo
    const transactions = yield* TransactionRepo
    const documents = yield* PublicDocuments
    const outbox = yield* Outbox
    const scheduler = yield* JobScheduler
    const tx = yield* Transactional
    const pix = yield* PixProvider
    const boleto = yield* BoletoProvider
    const acquirer = yield* Acquirer
    const antifraud = yield* Antifraud
    const vault = yield* CardVault
    const ids = yield* Ids
    const metrics = yield* Metrics

    /** Order exists in the account, is still payable, and the amount matches it (read check, before any provider call). */
    const payableOrder = Effect.fn("Payments.payableOrder")(function* (
      accountId: string,
      command: PaymentCommand,
      lock: boolean
    ) {
      const found = yield* lock
        ? orders.findForUpdate(accountId, command.orderId)
        : orders.find(accountId, command.orderId)
      if (Option.isNone(found)) return yield* new NotFound({ message: "orderId not found" })
      const order = found.value
      if (!isPayable(order.status)) {
        return yield* new Conflict({
          code: "order_not_payable",
          message: `order is ${order.status} and cannot be paid`
        })
      }
      if (command.amount !== order.amount) {
        return yield* ValidationFailed.one("amount", `amount must equal the order amount (${order.amount})`)
      }
      // Spec, Customers rule 2: a deleted customer's id is invalid for new payments.
      if (Option.isNone(yield* customers.find(accountId, order.customerId))) {
        return yield* new Conflict({
          code: "customer_deleted",
          message: "the order's customer was deleted; it cannot be paid"
        })
      }
      return order
    })

    /** Inserts the new transaction with its outbox event and jobs, in one database transaction with the order check. */
    const record = (
      accountId: string,
      command: PaymentCommand,
      insert: Parameters<typeof transactions.insert>[1],
      afterInsert: (t: TransactionRecord) => Effect.Effect<void>
    ) =>
      tx.run(
        Effect.gen(function* () {
          yield* payableOrder(accountId, command, true)
          // Under the order's row lock: one card charge in flight per order, so that concurrent
          // charges cannot capture twice (the others wait, then see PAID or this one's outcome).
          if (insert.status === "PROCESSING" && (yield* transactions.hasProcessing(accountId, command.orderId))) {
            return yield* new Conflict({
              code: "payment_in_progress",
              message: "a card charge of this order is in progress; retry later"
            })
          }
          const created = yield* transactions.insert(accountId, insert)
          yield* outbox.emit(accountId, "transaction.created", created)
          yield* afterInsert(created)
          return created
        })
      )

    const chargePix = Effect.fn("Payments.chargePix")(function* (
      accountId: string,
      command: Extract<PaymentCommand, { method: "PIX" }>,
      transactionId: string,
      customerId: string
    ) {
      const account = yield* Effect.flatten(accounts.findById(accountId)).pipe(Effect.orDie)
      const now = new Date(yield* Clock.currentTimeMillis)
      const expiresAt = new Date(now.getTime() + config.pixExpiresInSeconds * 1000)
      const charge = yield* pix.createCharge({
        transactionId,
        amount: command.amount,
        expiresAt,
        merchantName: account.name,
        merchantCity: PIX_CITY
      })
      const qrToken = documentToken()
      return yield* record(
        accountId,
        command,
        {
          id: transactionId,
          orderId: command.orderId,
          customerId,
          method: "PIX",
          amount: command.amount,
          status: "PENDING",
          installments: null,
          expiresAt,
          cardToken: null,
          antifraud: null,
          details: { pix: { emv: charge.emv, txid: charge.txid, expiresAt: expiresAt.toISOString(), qrToken } }
        },
        (created) =>
          Effect.all(
            [documents.create(qrToken, created.id, "pix_qr"), scheduler.expireAt(accountId, created.id, expiresAt)],
            { discard: true }
          )
      )
    })

    const chargeBoleto = Effect.fn("Payments.chargeBoleto")(function* (
      accountId: string,
      command: Extract<PaymentCommand, { method: "BOLETO" }>,
      transactionId: string,
      customerId: string
    ) {
      const customer = yield* Effect.flatten(customers.find(accountId, customerId)).pipe(
        Effect.orElseSucceed(() => undefined)
      )
      const now = new Date(yield* Clock.currentTimeMillis)
      const due = addDaysInSaoPaulo(now, config.boletoDueDays)
      const registered = yield* boleto.register({
        transactionId,
        amount: command.amount,
        dueDate: due.date,
        payerName: customer?.name ?? "Pagador",
        payerDocument: command.buyerDoc
      })
      const pdfToken = documentToken()
      return yield* record(
        accountId,
        command,
        {
          id: transactionId,
          orderId: command.orderId,
          customerId,
          method: "BOLETO",
          amount: command.amount,
          status: "PENDING",
          installments: null,
          expiresAt: due.endOfDay,
          cardToken: null,
          antifraud: null,
          details: {
            boleto: {
              barcode: registered.barcode,
              digitableLine: registered.digitableLine,
              dueDate: due.date,
              pdfToken,
              bankCode: registered.bankCode,
              bankName: registered.bankName,
              ourNumber: registered.ourNumber,
              payerName: customer?.name ?? "Pagador",
              payerDocument: command.buyerDoc
            }
          }
        },
        (created) =>
          Effect.all(
            [
              documents.create(pdfToken, created.id, "boleto_pdf"),
              scheduler.expireAt(accountId, created.id, due.endOfDay),
              scheduler.confirmBoletosSoon
            ],
            { discard: true }
          )
      )
    })

    /** Resolves the card to charge: a vaulted token of this account and of the order's customer, or the raw card. */
    const cardFor = Effect.fn("Payments.cardFor")(function* (
      accountId: string,
      command: Extract<PaymentCommand, { method: "CARD" }>,
      customerId: string
    ) {
      if (command.card._tag === "Raw") {
        const { cvv, ...card } = command.card.card
        return { card: { ...card, cvv } satisfies CardData, token: null }
      }
      const stored = yield* vault.reveal(accountId, command.card.token)
      if (Option.isNone(stored)) return yield* new NotFound({ message: "cardToken not found" })
      if (stored.value.customerId !== customerId) {
        return yield* ValidationFailed.one("cardToken", "cardToken belongs to another customer than the order's")
      }
      const { brand, expMonth, expYear, holderName, pan, token } = stored.value
      return { card: { pan, brand, expMonth, expYear, holderName } satisfies CardData, token }
    })

    const chargeCard = Effect.fn("Payments.chargeCard")(function* (
      accountId: string,
      command: Extract<PaymentCommand, { method: "CARD" }>,
      transactionId: string,
      customerId: string,
      existing: Option.Option<TransactionRecord>
    ) {
      const { card, token } = yield* cardFor(accountId, command, customerId)
      const cardDetails = { brand: card.brand, last4: card.pan.slice(-4), holderName: card.holderName }
      let current: TransactionRecord
      if (Option.isSome(existing)) {
        // A retry of a request that died mid-charge: resume it with the same acquirer idempotency key.
        current = existing.value
        if (current.status !== "PROCESSING") return current
      } else {
        const analysis = yield* antifraud.assess({
          transactionId,
          amount: command.amount,
          bin: card.pan.slice(0, 6),
          last4: card.pan.slice(-4),
          brand: card.brand,
          buyerDocument: command.buyerDoc,
          buyerBirthdate: command.buyerBirthdate
        })
        if (analysis.decision === "deny") {
          const declined = yield* tx.run(
            Effect.gen(function* () {
              yield* payableOrder(accountId, command, true)
              const created = yield* transactions.insert(accountId, {
                id: transactionId,
                orderId: command.orderId,
                customerId,
                method: "CARD",
                amount: command.amount,
                status: "DECLINED",
                installments: command.installments,
                expiresAt: null,
                cardToken: token,
                antifraud: analysis,
                details: { card: cardDetails }
              })
              const updated = yield* transactions.update(accountId, created.id, { declineCode: "fraud_suspected" })
              yield* outbox.emit(accountId, "transaction.created", updated)
              yield* outbox.emit(accountId, "transaction.declined", updated)
              return updated
            })
          )
          return declined
        }
        current = yield* record(
          accountId,
          command,
          {
            id: transactionId,
            orderId: command.orderId,
            customerId,
            method: "CARD",
            amount: command.amount,
            status: "PROCESSING",
            installments: command.installments,
            expiresAt: null,
            cardToken: token,
            antifraud: analysis,
            details: { card: cardDetails }
          },
          () => Effect.void
        )
      }
      const started = performance.now()
      const result = yield* acquirer
        .charge({ idempotencyKey: transactionId, amount: command.amount, installments: command.installments, card })
        .pipe(Effect.either)
      const outcome = Either.isLeft(result) ? "failed" : result.right._tag === "Approved" ? "approved" : "declined"
      metrics.acquirerDuration.observe({ operation: "charge", outcome }, (performance.now() - started) / 1000)
      return yield* tx.run(
        Effect.gen(function* () {
          if (Either.isLeft(result)) {
            const failed = yield* transactions.update(accountId, current.id, {
              status: "FAILED",
              declineCode: "processing_error"
            })
            yield* outbox.emit(accountId, "transaction.failed", failed)
            return failed
          }
          if (result.right._tag === "Declined") {
            const declined = yield* transactions.update(accountId, current.id, {
              status: "DECLINED",
              declineCode: result.right.code
            })
            yield* outbox.emit(accountId, "transaction.declined", declined)
            return declined
          }
          const order = yield* payableOrder(accountId, command, true).pipe(Effect.option)
          const captured = yield* transactions.update(accountId, current.id, {
            status: "CAPTURED",
            paidAt: new Date(yield* Clock.currentTimeMillis),
            acquirerReference: result.right.acquirerReference,
            details: { card: { ...cardDetails, authorizationCode: result.right.authorizationCode } }
          })
          // The order may have been paid by another transaction meanwhile; the capture stands and is refundable.
          if (Option.isSome(order)) yield* orders.setStatus(accountId, command.orderId, "PAID")
          yield* outbox.emit(accountId, "transaction.paid", captured)
          return captured
        })
      )
    })

    /** Declined and failed charges are recorded, then reported as 422 with their code. */
    const refusal = (t: TransactionRecord) =>
      t.status === "DECLINED"
        ? new Unprocessable({
            code: t.declineCode ?? "card_declined",
            message: declineMessage(t.declineCode),
            transactionId: t.id
          })
        : new Unprocessable({
            code: "processing_error",
            message: "the acquirer could not process the charge; the transaction is FAILED, try again",
            transactionId: t.id
          })

    return {
      process: Effect.fn("Payments.process")(function* (
        accountId: string,
        request: ProcessRequest,
        transactionId: string
      ) {
        const now = new Date(yield* Clock.currentTimeMillis)
        const command = yield* Either.match(validateProcess(request, now), {
          onLeft: Effect.fail,
          onRight: Effect.succeed
        })
        const resumed = yield* transactions.find(accountId, transactionId)
        const result =
          Option.isSome(resumed) && resumed.value.status !== "PROCESSING"
            ? resumed.value
            : yield* Effect.gen(function* () {
                const order = yield* payableOrder(accountId, command, false)
                switch (command.method) {
                  case "PIX":
                    return yield* chargePix(accountId, command, transactionId, order.customerId)
                  case "BOLETO":
                    return yield* chargeBoleto(accountId, command, transactionId, order.customerId)
                  case "CARD":
                    return yield* chargeCard(accountId, command, transactionId, order.customerId, resumed)
                }
              })
        metrics.charges.inc({ method: command.method, outcome: result.status.toLowerCase() })
        if (result.status === "DECLINED" || result.status === "FAILED") return yield* refusal(result)
        return result
      }),
      newTransactionId: ids.next
    }
  })
}) {}

const declineMessage = (code: string | null) => {
  switch (code) {
    case "insufficient_funds":
      return "the card has insufficient funds"
    case "expired_card":
      return "the card is expired"
    case "incorrect_cvc":
      return "the card's security code is incorrect"
    case "fraud_suspected":
      return "the charge was blocked by the antifraud analysis"
    default:
      return "the card was declined"
  }
}
