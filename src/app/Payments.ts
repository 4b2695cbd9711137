import type { AccountId, CustomerId, TransactionId } from "../domain/ids.ts"
import { Clock, Duration, Effect, Either, Option } from "effect"
import { AppConfig } from "../config/AppConfig.ts"
import { Conflict, NotFound, Unprocessable, ValidationFailed } from "../domain/errors.ts"
import { IllegalTransition } from "../domain/lifecycle.ts"
import { cardExpired } from "../domain/card.ts"
import { isPayable, type Order } from "../domain/order.ts"
import type { PaymentCommand } from "../domain/payment.ts"
import { installmentOption, offered } from "../domain/installments.ts"
import { documentType, normalizeDocument } from "../domain/document.ts"
import { feeOf, percentageShare } from "../domain/ledger.ts"
import { SubaccountRepo } from "../ports/SubaccountRepo.ts"
import { addBusinessDays } from "../domain/calendar.ts"
import { lastPayableDay as lastPayableDayOf, termField, validateTerms } from "../domain/chargeTerms.ts"
import { addBusinessDaysInSaoPaulo, endOfDayInSaoPaulo, saoPauloDate } from "../domain/time.ts"
import type { SplitRecord, TransactionRecord } from "../domain/transaction.ts"
import { AccountRepo } from "../ports/AccountRepo.ts"
import { Acquirer, type CardData } from "../ports/Acquirer.ts"
import { Antifraud } from "../ports/Antifraud.ts"
import { BoletoProvider } from "../ports/BoletoProvider.ts"
import { CardVault } from "../ports/CardVault.ts"
import { CustomerRepo } from "../ports/CustomerRepo.ts"
import { JobScheduler } from "../ports/JobScheduler.ts"
import { Metrics } from "../ports/Metrics.ts"
import { OrderRepo } from "../ports/OrderRepo.ts"
import { PixProvider } from "../ports/PixProvider.ts"
import { type DocumentKind, PublicDocuments } from "../ports/PublicDocuments.ts"
import type { NewTransaction } from "../ports/TransactionRepo.ts"
import { TransactionRepo } from "../ports/TransactionRepo.ts"
import { Transactional } from "../ports/Transactional.ts"
import { Lifecycle } from "./Lifecycle.ts"
import { fn } from "../spans.ts"
import { randomToken } from "./randomToken.ts"

const PIX_CITY = "SAO PAULO"

/** 256 random bits: the credential behind a public QR or PDF URL. */
const documentToken = randomToken

type CardCommand = Extract<PaymentCommand, { method: "CARD" }>

/** What a caller does with a charge's outcome inside the transaction that records it (see `charge`). */
type Settle = (t: TransactionRecord) => Effect.Effect<void>

/**
 * Charges an order by PIX, boleto or card, whatever interface asked. `transactionId` is reserved by
 * the caller (the idempotency record), so a retry after a crash resumes the same transaction and the
 * acquirer sees the same idempotency key. Declined and failed charges are records like any other:
 * each interface decides how to answer them.
 */
export class Payments extends Effect.Service<Payments>()("Payments", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const accounts = yield* AccountRepo
    const orders = yield* OrderRepo
    const customers = yield* CustomerRepo
    const transactions = yield* TransactionRepo
    const documents = yield* PublicDocuments
    const scheduler = yield* JobScheduler
    const tx = yield* Transactional
    const pix = yield* PixProvider
    const boleto = yield* BoletoProvider
    const acquirer = yield* Acquirer
    const antifraud = yield* Antifraud
    const vault = yield* CardVault
    const metrics = yield* Metrics
    const lifecycle = yield* Lifecycle
    const subaccounts = yield* SubaccountRepo

    /**
     * The order exists in the account, is still payable, its customer is live and the amount matches.
     * Checked before any provider call (no charge at a PSP for a bad order), and again under the
     * order's row lock in the transaction that records the charge.
     */
    const payableOrder = fn("Payments.payableOrder")(function* (
      accountId: AccountId,
      command: PaymentCommand,
      lock: boolean,
      /** A client's retry resuming the order's own charge in flight (Payments.charge): that one goes on. */
      resuming = false
    ) {
      if (command.orderId === null) return null
      const found = yield* orders.findToCharge(accountId, command.orderId, lock)
      if (Option.isNone(found)) return yield* new NotFound({ message: "orderId not found" })
      const { chargeInFlight, customerLive, customerName, order } = found.value
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
      if (!customerLive) {
        return yield* new Conflict({
          code: "customer_deleted",
          message: "the order's customer was deleted; it cannot be paid"
        })
      }
      // A card charge of this order whose outcome is unknown may have charged the buyer: no other charge, by
      // any method, until it is known (reconcile_charges, or an operator: docs/providers.md "Known limits").
      // Read under the order's row lock by `record`, which every charge's insert takes.
      if (chargeInFlight && !resuming) {
        return yield* new Conflict({
          code: "payment_in_progress",
          message: "a card charge of this order is in progress; retry later"
        })
      }
      return { order, customerName }
    })

    /** The new transaction with its event, documents and what `afterInsert` adds, inside the caller's transaction. */
    const writes = (
      accountId: AccountId,
      insert: NewTransaction,
      afterInsert: (t: TransactionRecord) => Effect.Effect<void>,
      extraDocuments: ReadonlyArray<{ readonly token: string; readonly kind: DocumentKind }>
    ) =>
      Effect.gen(function* () {
        const created = yield* lifecycle.create(accountId, insert)
        yield* documents.create(created.id, [
          { token: insert.details.checkoutToken!, kind: "checkout" },
          ...extraDocuments
        ])
        yield* afterInsert(created)
        return created
      })

    /** Records the new transaction with its event and jobs, in one database transaction with the order check. */
    const record = (
      accountId: AccountId,
      command: PaymentCommand,
      insert: NewTransaction,
      afterInsert: (t: TransactionRecord) => Effect.Effect<void> = () => Effect.void,
      extraDocuments: ReadonlyArray<{ readonly token: string; readonly kind: DocumentKind }> = []
    ) =>
      tx.run(
        Effect.gen(function* () {
          yield* payableOrder(accountId, command, true)
          // Under the order's row lock, in a statement of its own (payableOrder's read took its snapshot before
          // waiting for the lock, and so misses a card charge committed meanwhile): one card charge in flight
          // per order and no other charge beside it, so that concurrent charges cannot take the buyer's money
          // twice (the others wait, then see PAID or this one's outcome).
          if (command.orderId !== null && (yield* transactions.hasProcessing(accountId, command.orderId))) {
            return yield* new Conflict({
              code: "payment_in_progress",
              message: "a card charge of this order is in progress; retry later"
            })
          }
          return yield* writes(accountId, insert, afterInsert, extraDocuments)
        })
      )

    /**
     * `record` in one round trip (issue 22 §2, docs/performance.md "One statement after admission"), for a
     * charge whose writes are all deferred (PIX): the order as `payableOrder` just read it is expected
     * unchanged, under its row lock, by the same statement that writes the rest. Had it changed in
     * between, nothing is written and `record` decides again under the lock, as it always did.
     */
    const recordAtOnce = (
      accountId: AccountId,
      command: PaymentCommand,
      seen: Order | null,
      insert: NewTransaction,
      afterInsert: (t: TransactionRecord) => Effect.Effect<void>,
      extraDocuments: ReadonlyArray<{ readonly token: string; readonly kind: DocumentKind }>
    ) =>
      tx
        .batch(
          Effect.zipRight(
            // payableOrder let it through only with its customer live.
            seen === null ? Effect.void : orders.expectAsRead(accountId, { order: seen, customerLive: true }),
            writes(accountId, insert, afterInsert, extraDocuments)
          )
        )
        .pipe(Effect.catchTag("StaleRead", () => record(accountId, command, insert, afterInsert, extraDocuments)))

    /**
     * The merchant name a BR Code carries, read once a minute per account: an account's name has no
     * endpoint that changes it, and a read per charge would be a round trip for nothing (issue 10).
     */
    const names = new Map<AccountId, { readonly name: string; readonly at: number }>()
    const merchantNameOf = fn("Payments.merchantNameOf")(function* (accountId: AccountId, now: number) {
      const known = names.get(accountId)
      if (known !== undefined && now - known.at < 60_000) return known.name
      const account = yield* Effect.flatten(accounts.findById(accountId)).pipe(Effect.orDie)
      if (names.size >= 10_000) names.clear()
      names.set(accountId, { name: account.name, at: now })
      return account.name
    })

    /** What the buyer is charged: v1 cards pay option n of the installment table (CONTRACT-v1 §4). */
    const totalOf = (command: PaymentCommand) =>
      command.method === "CARD" && command.origin === "v1"
        ? installmentOption(command.amount, command.installments, config.installments).total
        : command.amount

    /**
     * The sale's fee and its split (CONTRACT-v1 §7, §8), fixed now: each recipient must be a subaccount
     * of the account, and the shares may not exceed what is left after the fee.
     */
    const moneyOf = fn("Payments.moneyOf")(function* (accountId: AccountId, command: PaymentCommand) {
      const total = totalOf(command)
      const fee = feeOf(config.money.fees[command.method], total)
      const split: Array<SplitRecord> = []
      for (const [i, rule] of command.split.entries()) {
        if (Option.isNone(yield* subaccounts.find(accountId, rule.subaccountId))) {
          return yield* ValidationFailed.one(
            `split[${i}].subaccount_id`,
            `split[${i}].subaccount_id is not a subaccount of this account`
          )
        }
        const share = rule.amount ?? percentageShare(rule.percentage ?? 0, total) ?? 0
        split.push({ subaccountId: rule.subaccountId, amount: rule.amount, percentage: rule.percentage, share })
      }
      const shared = split.reduce((sum, s) => sum + s.share, 0)
      if (shared > total - fee) {
        return yield* ValidationFailed.one(
          "split",
          `split shares (${shared}) exceed amount_total minus the fee (${total - fee})`
        )
      }
      return { fee, split }
    })

    const base = (command: PaymentCommand, transactionId: TransactionId, customerId: CustomerId | null) => ({
      id: transactionId,
      origin: command.origin,
      orderId: command.orderId,
      customerId,
      method: command.method,
      amount: command.amount,
      amountTotal: command.amount,
      amountInterest: 0,
      buyer: command.buyer,
      products: command.products,
      metadata: command.metadata,
      comment: command.comment,
      split: [] as ReadonlyArray<SplitRecord>,
      fee: 0
    })

    /**
     * The charge's addressee (API Pix `devedor`): the v1 buyer, or the v2 order's customer with the payer's
     * document. Only a name with a valid document is sent (the spec forbids a name without one).
     */
    const pixPayerOf = (command: Extract<PaymentCommand, { method: "PIX" }>, customerName: string | null) =>
      Effect.sync(() => {
        if (command.buyer !== null)
          return {
            name: command.buyer.name,
            document: command.buyer.document,
            documentType: command.buyer.documentType
          }
        const document = command.payer.document === undefined ? null : normalizeDocument(command.payer.document)
        const kind = document === null ? null : documentType(document)
        if (document === null || kind === null) return null
        // The order's customer, named by the read that checked the order (no read of its own).
        return customerName === null ? null : { name: customerName, document, documentType: kind }
      })

    const chargePix = fn("Payments.chargePix")(function* (
      accountId: AccountId,
      command: Extract<PaymentCommand, { method: "PIX" }>,
      transactionId: TransactionId,
      customerId: CustomerId | null,
      settle: Settle,
      seen: { readonly order: Order; readonly customerName: string | null } | null
    ) {
      const money = yield* moneyOf(accountId, command)
      const now = new Date(yield* Clock.currentTimeMillis)
      const merchantName = yield* merchantNameOf(accountId, now.getTime())
      const expiresAt = command.expiresAt ?? new Date(now.getTime() + config.pixExpiresInSeconds * 1000)
      const charge = yield* pix.createCharge({
        transactionId,
        amount: command.amount,
        expiresAt,
        merchantName,
        merchantCity: PIX_CITY,
        payer: pixPayerOf(command, seen?.customerName ?? null)
      })
      const qrToken = documentToken()
      return yield* recordAtOnce(
        accountId,
        command,
        seen?.order ?? null,
        {
          ...base(command, transactionId, customerId),
          ...money,
          status: "PENDING",
          installments: null,
          expiresAt,
          cardToken: null,
          antifraud: null,
          details: {
            pix: { emv: charge.emv, txid: charge.txid, expiresAt: expiresAt.toISOString(), qrToken },
            checkoutToken: documentToken()
          }
        },
        (created) => Effect.zipRight(scheduler.expireAt(accountId, created.id, expiresAt), settle(created)),
        [{ token: qrToken, kind: "pix_qr" }]
      )
    })

    const chargeBoleto = fn("Payments.chargeBoleto")(function* (
      accountId: AccountId,
      command: Extract<PaymentCommand, { method: "BOLETO" }>,
      transactionId: TransactionId,
      customerId: CustomerId | null,
      settle: Settle
    ) {
      const money = yield* moneyOf(accountId, command)
      const customer =
        customerId === null
          ? undefined
          : yield* Effect.flatten(customers.find(accountId, customerId)).pipe(Effect.orElseSucceed(() => undefined))
      const now = new Date(yield* Clock.currentTimeMillis)
      // A deadline asked for names the due date: its calendar day in São Paulo (CONTRACT-v1 §3);
      // otherwise BOLETO_DUE_DAYS business days from today (docs/calendar.md).
      const dueDate =
        command.expiresAt === null
          ? addBusinessDaysInSaoPaulo(now, config.boletoDueDays).date
          : saoPauloDate(command.expiresAt)
      const terms = command.terms ?? undefined
      // The rules that need the due date (a discount dated after it), now that it is known.
      const issues = terms === undefined ? [] : validateTerms(terms, command.amount, dueDate)
      if (issues.length > 0) {
        const prefix = command.termsField ?? "terms"
        return yield* new ValidationFailed({
          errors: issues.map((i) => {
            const field = termField(prefix, i.path)
            return { field, message: `${field} ${i.message}` }
          })
        })
      }
      // Due on a weekend or bank holiday, it is payable without charges until the end of the next business
      // day (docs/calendar.md); with a fine or interest it is meant to be paid late too, BOLETO_LATE_DAYS
      // after that (docs/boleto.md); otherwise "Não receber após o vencimento".
      const late = terms?.fine !== undefined || terms?.interest !== undefined
      const lastPayableDay = lastPayableDayOf(dueDate, terms, config.boletoLateDays)
      const due = { date: dueDate, endOfDay: endOfDayInSaoPaulo(lastPayableDay) }
      // It expires later than it stops being payable: the bank reports a payment of the last payable day in
      // a retorno of the next business days, which must still find it PENDING (docs/boleto.md "When a
      // boleto expires"). `expiresAt` stays the last payable instant, which the bank enforces.
      const writtenOff = endOfDayInSaoPaulo(addBusinessDays(lastPayableDay, config.boletoReportDays))
      const payerName = command.buyer?.name ?? customer?.name ?? "Pagador"
      const registered = yield* boleto.register({
        accountId,
        transactionId,
        amount: command.amount,
        dueDate: due.date,
        lastPayableDay,
        payerName,
        payerDocument: command.payer.document,
        terms
      })
      const pdfToken = documentToken()
      // Bolepix: the same charge as a due-date PIX charge, payable as long as the slip (docs/boleto.md "Bolepix").
      const bolepix =
        command.pix === true
          ? yield* dueCharge(accountId, command, transactionId, payerName, due, late ? config.boletoLateDays : 0)
          : null
      return yield* record(
        accountId,
        command,
        {
          ...base(command, transactionId, customerId),
          ...money,
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
              payerName,
              payerDocument: command.payer.document,
              ...(terms === undefined ? {} : { terms })
            },
            ...(bolepix === null ? {} : { pix: bolepix }),
            checkoutToken: documentToken()
          }
        },
        (created) =>
          Effect.all(
            [scheduler.expireAt(accountId, created.id, writtenOff), scheduler.confirmBoletosSoon, settle(created)],
            { discard: true }
          ),
        [
          { token: pdfToken, kind: "boleto_pdf" },
          ...(bolepix === null ? [] : [{ token: bolepix.qrToken, kind: "pix_qr" as const }])
        ]
      )
    })

    /** A bolepix's PIX side: a `cobv` with the boleto's amount, due date, terms and pagador. */
    const dueCharge = fn("Payments.dueCharge")(function* (
      accountId: AccountId,
      command: Extract<PaymentCommand, { method: "BOLETO" }>,
      transactionId: TransactionId,
      payerName: string,
      due: { readonly date: string; readonly endOfDay: Date },
      // Counted, as the API Pix counts `validadeAposVencimento`, from the due date moved to a business day.
      payableDaysAfterDue: number
    ) {
      const now = new Date(yield* Clock.currentTimeMillis)
      const document = normalizeDocument(command.payer.document)
      const kind = documentType(document)
      if (kind === null) return yield* ValidationFailed.one("buyerDoc", "a bolepix needs the payer's CPF or CNPJ")
      const charge = yield* pix.createDueCharge({
        transactionId,
        amount: command.amount,
        dueDate: due.date,
        payableDaysAfterDue,
        terms: command.terms ?? undefined,
        merchantName: yield* merchantNameOf(accountId, now.getTime()),
        merchantCity: PIX_CITY,
        payer: { name: payerName, document, documentType: kind }
      })
      return {
        emv: charge.emv,
        txid: charge.txid,
        key: charge.key,
        expiresAt: due.endOfDay.toISOString(),
        qrToken: documentToken()
      }
    })

    /** Resolves the card to charge: a vaulted token of this account and of the order's customer, or the raw card. */
    const cardFor = fn("Payments.cardFor")(function* (
      accountId: AccountId,
      command: CardCommand,
      customerId: CustomerId | null
    ) {
      if (command.card._tag === "Raw") {
        const { cvv, ...card } = command.card.card
        return { card: { ...card, cvv } satisfies CardData, token: null }
      }
      if (command.card._tag === "Hosted") return yield* Effect.dieMessage("a hosted charge has no card yet")
      const stored = yield* vault.reveal(accountId, command.card.token)
      // A card held for a review (no customer) is not a saved card: its token charges nothing else.
      if (Option.isNone(stored) || stored.value.customerId === null) {
        return yield* new NotFound({ message: "cardToken not found" })
      }
      if (customerId !== null && stored.value.customerId !== customerId) {
        return yield* ValidationFailed.one("cardToken", "cardToken belongs to another customer than the order's")
      }
      if (command.buyer !== null) {
        // A charge without an order: the card must have been saved for a customer of the buyer's document.
        const owner = yield* customers.find(accountId, stored.value.customerId)
        if (Option.isNone(owner) || owner.value.document !== command.buyer.document) {
          return yield* ValidationFailed.one("cardToken", "cardToken was saved for another document than the buyer's")
        }
      }
      if (stored.value._tag === "Unreadable") {
        // The vault's key is no longer the one it was stored under (logged by the vault): the merchant can
        // act on it by tokenizing the card again (docs/decisions.md "Saved cards the gateway cannot charge").
        return yield* new Unprocessable({
          code: "card_token_unusable",
          message: "the saved card can no longer be read by the vault; tokenize the card again",
          field: "cardToken"
        })
      }
      const { brand, expMonth, expYear, holderName, pan, token } = stored.value
      return { card: { pan, brand, expMonth, expYear, holderName } satisfies CardData, token }
    })

    /**
     * A saved card whose expiry has passed since it was tokenized is judged by the gateway, as a raw card's
     * date is at decoding (docs/decisions.md "Card data the gateway can judge itself"): 400 naming the
     * token, before the antifraud and the acquirer, and nothing recorded.
     */
    const refuseExpiredToken = fn("Payments.refuseExpiredToken")(function* (card: CardData) {
      const now = new Date(yield* Clock.currentTimeMillis)
      // cardExpired takes the two-digit year; a stored year outside 2000–2099 reads as expired (fail closed).
      if (!cardExpired(card.expMonth, card.expYear - 2000, now)) return
      const month = String(card.expMonth).padStart(2, "0")
      return yield* ValidationFailed.one(
        "cardToken",
        `the saved card expired (${month}/${card.expYear}); tokenize a card that is still valid`
      )
    })

    /** Asks the acquirer and moves the PROCESSING transaction by its answer. */
    const authorize = fn("Payments.authorize")(function* (
      accountId: AccountId,
      current: TransactionRecord,
      card: CardData,
      sentBefore = false
    ) {
      const installments = current.installments ?? 1
      // While the acquirers are asked (a failover asks several, each up to its timeout), the charge is marked
      // as worked on every third of RECONCILE_STUCK_AFTER_SECONDS, so the reconciliation job does not take it
      // for lost and fail it while an acquirer is about to approve it (docs/architecture.md).
      // Interruptible: a charge with an Idempotency-Key runs uninterruptibly (idempotency.ts), and a fiber
      // forked there would inherit that and never let the scope that ends it close.
      const marking = Effect.sleep(Duration.millis((config.reconcileStuckAfterSeconds * 1000) / 3)).pipe(
        Effect.zipRight(transactions.touchProcessing(accountId, current.id)),
        Effect.forever,
        Effect.interruptible
      )
      const result = yield* acquirer
        .charge({
          idempotencyKey: current.id,
          amount: current.amountTotal,
          installments,
          card,
          ...(sentBefore ? { sentBefore } : {})
        })
        .pipe(Effect.either, (asked) => Effect.scoped(Effect.zipRight(Effect.forkScoped(marking), asked)))
      const cardDetails = current.details.card
      if (Either.isLeft(result)) {
        // The acquirer may have charged and could not be asked: the charge stays PROCESSING and the
        // reconcile_charges job settles it from the acquirer's answer (docs/providers.md "Failover rules").
        if (result.left.outcome === "unknown") return current
        return yield* lifecycle.move(accountId, current.id, "fail", { declineCode: "processing_error" })
      }
      if (result.right._tag === "Declined") {
        return yield* lifecycle.move(accountId, current.id, "decline", { declineCode: result.right.code })
      }
      const paidAt = new Date(yield* Clock.currentTimeMillis)
      // The sandbox dispute card's announced chargeback commits with the capture (JobScheduler), in the
      // statement of its deferred writes: no round trip of its own. Scheduled before it on its own, a process
      // dying in between left the job committed and the charge PROCESSING, which reconcile_charges then
      // captured without it (Reconciliation.settle schedules no dispute).
      const dispute = result.right.chargebackExpected
        ? scheduler.sandboxDisputeAt(
            accountId,
            current.id,
            new Date(paidAt.getTime() + config.money.disputeDelaySeconds * 1000)
          )
        : Effect.void
      return yield* lifecycle.move(
        accountId,
        current.id,
        "capture",
        {
          paidAt,
          acquirerReference: result.right.acquirerReference,
          ...(result.right.acquirer === undefined ? {} : { acquirer: result.right.acquirer }),
          ...(cardDetails
            ? { details: { card: { ...cardDetails, authorizationCode: result.right.authorizationCode } } }
            : {})
        },
        dispute
      )
    })

    const chargeCard = fn("Payments.chargeCard")(function* (
      accountId: AccountId,
      command: CardCommand,
      transactionId: TransactionId,
      customerId: CustomerId | null,
      existing: Option.Option<TransactionRecord>
    ) {
      if (command.card._tag === "Hosted") {
        // No card yet (docs/checkout.md "Hosted card form"): PENDING with its checkout page, where the
        // buyer types the card; nothing is asked of the antifraud or the acquirer until then.
        if (Option.isSome(existing)) return existing.value
        const total = totalOf(command)
        return yield* record(accountId, command, {
          ...base(command, transactionId, customerId),
          ...(yield* moneyOf(accountId, command)),
          amountTotal: total,
          amountInterest: total - command.amount,
          status: "PENDING",
          installments: command.installments,
          expiresAt: null,
          cardToken: null,
          antifraud: null,
          details: {
            checkoutToken: documentToken(),
            ...(command.card.maxInstallments === undefined ? {} : { maxInstallments: command.card.maxInstallments })
          }
        })
      }
      const { card, token } = yield* cardFor(accountId, command, customerId)
      if (Option.isSome(existing)) {
        // A retry of a request that died mid-charge: resume it with the same acquirer idempotency key.
        if (existing.value.status !== "PROCESSING") return existing.value
        // Marked as worked on first, so the reconciliation job, which would fail a charge the acquirer has
        // not seen yet, leaves it to this retry (Reconciliation.settle); settled by the job meanwhile, it
        // is answered as the job left it, and nothing is sent.
        if (!(yield* transactions.touchProcessing(accountId, existing.value.id))) {
          return yield* Effect.flatten(transactions.find(accountId, existing.value.id)).pipe(Effect.orDie)
        }
        return yield* authorize(accountId, existing.value, card, true)
      }
      // Not on a resume above: that charge was judged when it began and may already be at the acquirer.
      if (token !== null) yield* refuseExpiredToken(card)
      const analysis = yield* antifraud.assess({
        accountId,
        transactionId,
        amount: command.amount,
        pan: card.pan,
        bin: card.pan.slice(0, 6),
        last4: card.pan.slice(-4),
        brand: card.brand,
        holderName: card.holderName,
        buyer: yield* buyerOf(accountId, command, customerId)
      })
      metrics.antifraudDecisions.inc({ decision: analysis.decision })
      // v1 charges option n of the installment table (CONTRACT-v1 §4); v2 charges the order's amount.
      const total = totalOf(command)
      const insert: NewTransaction = {
        ...base(command, transactionId, customerId),
        ...(yield* moneyOf(accountId, command)),
        amountTotal: total,
        amountInterest: total - command.amount,
        status: "PROCESSING",
        installments: command.installments,
        expiresAt: null,
        cardToken: token,
        antifraud: analysis,
        details: {
          card: { brand: card.brand, last4: card.pan.slice(-4), holderName: card.holderName },
          checkoutToken: documentToken()
        }
      }
      if (analysis.decision === "reject") {
        // Refused before the acquirer sees it: created and declined in one database transaction.
        return yield* tx.run(
          Effect.gen(function* () {
            yield* payableOrder(accountId, command, true)
            const refused = { ...insert, status: "DECLINED" as const, declineCode: "fraud_suspected" }
            const created = yield* lifecycle.create(accountId, refused, "decline")
            yield* documents.create(created.id, [{ token: insert.details.checkoutToken!, kind: "checkout" }])
            return created
          })
        )
      }
      if (analysis.decision === "review") {
        // Not captured until a person decides (CONTRACT-v1 §9): the acquirer is not asked yet. A raw
        // card is held in the vault (without its CVV, under no customer) so that an approval can charge
        // it; it is vaulted in the same database transaction as the charge that refers to it.
        return yield* tx.run(
          Effect.gen(function* () {
            yield* payableOrder(accountId, command, true)
            const held =
              token ??
              (yield* vault.store(accountId, null, card.brand, {
                pan: card.pan,
                expMonth: card.expMonth,
                expYear: card.expYear,
                holderName: card.holderName
              })).token
            const created = yield* lifecycle.create(accountId, { ...insert, status: "ANTIFRAUD", cardToken: held })
            yield* documents.create(created.id, [{ token: insert.details.checkoutToken!, kind: "checkout" }])
            return created
          })
        )
      }
      const current = yield* record(accountId, command, insert)
      return yield* authorize(accountId, current, card)
    })

    /** Who pays, as the antifraud sees it: the v1 buyer, or the v2 order's customer (no IP on /api). */
    const buyerOf = fn("Payments.buyerOf")(function* (
      accountId: AccountId,
      command: CardCommand,
      customerId: CustomerId | null
    ) {
      const birthdate = command.payer.birthdate ?? null
      if (command.buyer !== null) {
        const { document, email, ip, name } = command.buyer
        return { name, email, document, ip, birthdate }
      }
      const customer = customerId === null ? Option.none() : yield* customers.find(accountId, customerId)
      return Option.match(customer, {
        onNone: () => ({ name: null, email: null, document: command.payer.document ?? null, ip: null, birthdate }),
        onSome: (c) => ({ name: c.name, email: c.email, document: c.document, ip: null, birthdate })
      })
    })

    /** The charge's held card discarded (a customer's saved card is kept), inside the caller's transaction. */
    const discardHeld = fn("Payments.discardHeld")(function* (accountId: AccountId, t: TransactionRecord) {
      if (t.cardToken === null) return t
      return (yield* vault.discard(accountId, t.cardToken)) ? { ...t, cardToken: null } : t
    })

    /**
     * A person's decision on a charge in review (CONTRACT-v1 §9), whoever reports it (the sandbox
     * endpoint today, a real antifraud's notification later). Approve: the `approve` move, then the
     * acquirer is asked for the held card and the charge ends captured, declined or failed. Reject:
     * declined `fraud_suspected`. Either way the stored analysis becomes `completed` with the decision, and a
     * card held for the review (not a customer's saved card) leaves the vault in the same database
     * transaction (`CardVault.discard`): on approval its PAN is read there and sent to the acquirer from
     * memory. Nothing asks for it again: the decision is made once (ANTIFRAUD only), and a charge whose
     * outcome is unknown is settled from the acquirer's status query or by an operator, never sent again.
     */
    const decideReview = fn("Payments.decideReview")(function* (
      accountId: AccountId,
      id: TransactionId,
      decision: "approve" | "reject"
    ) {
      const decided = yield* tx.run(
        Effect.gen(function* () {
          const found = yield* transactions.findForUpdate(accountId, id)
          if (Option.isNone(found)) return yield* new NotFound({ message: "transaction not found" })
          const t = found.value
          const trigger = decision === "approve" ? "approve" : "decline"
          // Only a charge in review is decided (409 otherwise): `decline` alone would also accept PROCESSING.
          if (t.status !== "ANTIFRAUD") {
            return yield* new IllegalTransition({ trigger, from: t.status, method: t.method })
          }
          const antifraud = {
            ...(t.antifraud ?? { score: 0, reason: null }),
            decision,
            status: "completed" as const
          }
          if (decision === "reject") {
            const rejected = yield* lifecycle.apply(accountId, t, "decline", {
              declineCode: "fraud_suspected",
              antifraud
            })
            return { moved: yield* discardHeld(accountId, rejected), held: Option.none() }
          }
          if (t.orderId !== null) {
            // The order may have been paid meanwhile by another charge; one capture per order, as in `record`.
            const order = yield* orders.findForUpdate(accountId, t.orderId)
            if (Option.isSome(order) && !isPayable(order.value.status)) {
              return yield* new Conflict({
                code: "order_not_payable",
                message: `order is ${order.value.status}; reject this review instead`
              })
            }
            if (yield* transactions.hasProcessing(accountId, t.orderId)) {
              return yield* new Conflict({
                code: "payment_in_progress",
                message: "a card charge of this order is in progress; retry later"
              })
            }
          }
          const approved = yield* lifecycle.apply(accountId, t, "approve", { antifraud })
          const held = approved.cardToken === null ? Option.none() : yield* vault.reveal(accountId, approved.cardToken)
          return { moved: yield* discardHeld(accountId, approved), held }
        })
      )
      const { held, moved } = decided
      if (decision === "reject") return moved
      if (Option.isNone(held) || held.value._tag === "Unreadable") {
        // Nothing to charge (the card left the vault, or the vault can no longer read it, which it logs):
        // the charge cannot be made.
        return yield* lifecycle.move(accountId, moved.id, "fail", { declineCode: "processing_error" })
      }
      const { brand, expMonth, expYear, holderName, pan } = held.value
      return yield* authorize(accountId, moved, { pan, brand, expMonth, expYear, holderName })
    })

    /**
     * The plan a buyer chose on the hosted form (docs/checkout.md "Hosted card form"): undefined when it is
     * the one the charge was created with; otherwise the creation's rules again for `n` installments —
     * total from the installment table (CONTRACT-v1 §4), fee, split shares — and the same split check.
     */
    const chosenPlan = fn("Payments.chosenPlan")(function* (t: TransactionRecord, n: number | undefined) {
      const max = t.details.maxInstallments
      const current = t.installments ?? 1
      if (n === undefined || n === current) return undefined
      if (max === undefined) {
        return yield* ValidationFailed.one("installments", `installments is fixed by the merchant at ${current}`)
      }
      const refuse = ValidationFailed.one("installments", `installments must be one of the plans offered, 1 to ${max}`)
      if (!Number.isInteger(n) || n < 1 || n > max) return yield* refuse
      const option = installmentOption(t.amount, n, config.installments)
      if (!offered(option, config.installments)) return yield* refuse
      const fee = feeOf(config.money.fees.CARD, option.total)
      const split = t.split.map((r) => ({
        ...r,
        share: r.amount ?? percentageShare(r.percentage ?? 0, option.total) ?? 0
      }))
      if (split.reduce((sum, r) => sum + r.share, 0) > option.total - fee) {
        return yield* ValidationFailed.one("installments", "installments leaves less than the split's shares")
      }
      return { installments: n, amountTotal: option.total, amountInterest: option.total - t.amount, fee, split }
    })

    /**
     * The card a buyer typed on the hosted form of a PENDING card charge (docs/checkout.md "Hosted card
     * form"): the antifraud, then `submit` (PENDING → PROCESSING, the card's brand and last 4 recorded)
     * with its decision in one database transaction, then the acquirer as for any card. The card and its
     * CVV go to the acquirer (and, held for a review, to the vault without the CVV), nowhere else.
     */
    const payHosted = fn("Payments.payHosted")(function* (
      accountId: AccountId,
      transactionId: TransactionId,
      card: CardData,
      installments?: number
    ) {
      const found = yield* transactions.find(accountId, transactionId)
      if (Option.isNone(found)) return yield* new NotFound({ message: "transaction not found" })
      const t = found.value
      if (t.method !== "CARD" || t.status !== "PENDING") {
        return yield* new Conflict({ code: "not_payable", message: `this payment is ${t.status}, not awaiting a card` })
      }
      const plan = yield* chosenPlan(t, installments)
      const buyer = t.buyer
      const analysis = yield* antifraud.assess({
        accountId,
        transactionId,
        amount: t.amount,
        pan: card.pan,
        bin: card.pan.slice(0, 6),
        last4: card.pan.slice(-4),
        brand: card.brand,
        holderName: card.holderName,
        buyer: {
          name: buyer?.name ?? null,
          email: buyer?.email ?? null,
          document: buyer?.document ?? null,
          ip: buyer?.ip ?? null,
          birthdate: null
        }
      })
      metrics.antifraudDecisions.inc({ decision: analysis.decision })
      const moved = yield* tx.run(
        Effect.gen(function* () {
          const locked = yield* transactions.findForUpdate(accountId, transactionId)
          // Two submissions at once: the second finds it PROCESSING and is refused (409).
          if (Option.isNone(locked) || locked.value.status !== "PENDING") {
            return yield* new Conflict({ code: "not_payable", message: "this payment is no longer awaiting a card" })
          }
          const submitted = yield* lifecycle.apply(accountId, locked.value, "submit", {
            ...(plan === undefined ? {} : { plan }),
            antifraud: analysis,
            details: { card: { brand: card.brand, last4: card.pan.slice(-4), holderName: card.holderName } }
          })
          if (analysis.decision === "reject")
            return yield* lifecycle.apply(accountId, submitted, "decline", { declineCode: "fraud_suspected" })
          if (analysis.decision === "review") {
            const held = yield* vault.store(accountId, null, card.brand, {
              pan: card.pan,
              expMonth: card.expMonth,
              expYear: card.expYear,
              holderName: card.holderName
            })
            return yield* lifecycle.apply(accountId, submitted, "review", { cardToken: held.token })
          }
          return submitted
        })
      )
      if (moved.status !== "PROCESSING") return moved
      return yield* authorize(accountId, moved, card)
    })

    return {
      payHosted,
      charge: fn("Payments.charge")(function* (
        accountId: AccountId,
        command: PaymentCommand,
        transactionId: TransactionId,
        /** The id is new (not a retry's): there is no earlier attempt to resume, so none is looked up. */
        fresh = false,
        /**
         * Called with the outcome as the last step of the database transaction that records it, when
         * one does (PIX, boleto): the caller's own record of it (an idempotency key's reply) commits
         * with the charge. A card's outcome comes after the acquirer's answer and is not settled here.
         */
        settle: Settle = () => Effect.void
      ) {
        const resumed = fresh ? Option.none() : yield* transactions.find(accountId, transactionId)
        const result =
          Option.isSome(resumed) && resumed.value.status !== "PROCESSING"
            ? resumed.value
            : yield* Effect.gen(function* () {
                const seen = yield* payableOrder(accountId, command, false, Option.isSome(resumed))
                const customerId = seen?.order.customerId ?? null
                switch (command.method) {
                  case "PIX":
                    return yield* chargePix(accountId, command, transactionId, customerId, settle, seen)
                  case "BOLETO":
                    return yield* chargeBoleto(accountId, command, transactionId, customerId, settle)
                  case "CARD":
                    return yield* chargeCard(accountId, command, transactionId, customerId, resumed)
                }
              })
        metrics.charges.inc({ method: command.method, outcome: result.status.toLowerCase() })
        return result
      }),
      decideReview
    }
  })
}) {}
