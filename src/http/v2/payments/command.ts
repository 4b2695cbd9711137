import { CustomerId, type OrderId } from "../../../domain/ids.ts"
import { Either, ParseResult, Schema } from "effect"
import type * as AST from "effect/SchemaAST"
import { isValidBirthdate, isValidBrazilianMobile, isValidCep, isValidUf } from "../../../domain/address.ts"
import { isValidBuyerDocument } from "../../../domain/document.ts"
import type { FieldError } from "../../../domain/errors.ts"
import { MAX_AMOUNT } from "../../../domain/order.ts"
import { checkRawCard, MAX_INSTALLMENTS, type PaymentCommand, type RawCard } from "../../../domain/payment.ts"
import type { TokenizeCommand } from "../../../app/Cards.ts"
import type { PaymentMethod } from "../../../domain/transaction.ts"
import { isUuid } from "../../../domain/uuid.ts"
import { decodeTerms, type WireTermsValue } from "../../shared/chargeTerms.ts"

/** The body of POST /api/payment-gateway/process once its fields have their JSON types. */
export interface ProcessRequest {
  readonly orderId: string
  readonly method: PaymentMethod
  readonly amount: number
  readonly buyerDoc?: string | undefined
  readonly buyerCellNumber: string
  readonly buyerAddress: {
    readonly postal_code: string
    readonly street: string
    readonly number: string
    readonly neighborhood: string
    readonly city: string
    readonly state: string
  }
  readonly installments?: number | undefined
  readonly cardHolderName?: string | undefined
  readonly cardNumber?: string | undefined
  readonly cardExpirationMonth?: string | undefined
  readonly cardExpirationYear?: string | undefined
  readonly cardSecurityCode?: string | undefined
  readonly cardBrand?: string | undefined
  readonly cardToken?: string | undefined
  readonly buyerBirthdate?: string | undefined
  readonly boleto?: WireTermsValue | undefined
}

/** The field rules every method shares (CONTRACT §7): documents, phone, address, amount, birthdate. */
const commonErrors = (request: ProcessRequest, now: Date): Array<FieldError> => {
  const errors: Array<FieldError> = []
  const check = (ok: boolean, field: string, message: string) => {
    if (!ok) errors.push({ field, message: `${field} ${message}` })
  }
  check(isUuid(request.orderId), "orderId", "must be a UUID")
  check(
    Number.isInteger(request.amount) && request.amount > 0 && request.amount <= MAX_AMOUNT,
    "amount",
    `must be an integer number of centavos from 1 to ${MAX_AMOUNT}`
  )
  if (request.buyerDoc !== undefined) {
    check(
      isValidBuyerDocument(request.buyerDoc),
      "buyerDoc",
      "must be a valid CPF (11 digits) or CNPJ (14 digits), digits only"
    )
  }
  check(
    isValidBrazilianMobile(request.buyerCellNumber),
    "buyerCellNumber",
    "must be a Brazilian mobile number, e.g. (11) 91234-5678"
  )
  const address = request.buyerAddress
  check(isValidCep(address.postal_code), "buyerAddress.postal_code", "must be a CEP of 8 digits")
  for (const key of ["street", "number", "neighborhood", "city"] as const) {
    check(
      address[key].trim().length > 0 && address[key].length <= 255,
      `buyerAddress.${key}`,
      "must have 1 to 255 characters"
    )
  }
  check(isValidUf(address.state), "buyerAddress.state", "must be a Brazilian state code (UF), e.g. SP")
  if (request.buyerBirthdate !== undefined) {
    check(
      isValidBirthdate(request.buyerBirthdate, now),
      "buyerBirthdate",
      "must be a real past date YYYY-MM-DD (1900 or later)"
    )
  }
  return errors
}

/**
 * Every rule of interface-v2 and CONTRACT §7 for a charge, shared and method-specific, reporting
 * every broken field at once by its v2 name; the result is the core's PaymentCommand.
 */
export const decodeProcess = (
  request: ProcessRequest,
  now: Date
): Either.Either<PaymentCommand, ReadonlyArray<FieldError>> => {
  const errors: Array<FieldError> = commonErrors(request, now)
  const a = request.buyerAddress
  const common = {
    origin: "v2" as const,
    // A UUID per commonErrors: only a Right, returned when every rule held, carries it.
    orderId: request.orderId as OrderId,
    buyer: null,
    products: [],
    metadata: null,
    comment: null,
    split: [],
    expiresAt: null,
    amount: request.amount,
    payer: {
      document: request.buyerDoc,
      phone: request.buyerCellNumber,
      address: {
        zipCode: a.postal_code,
        street: a.street,
        number: a.number,
        neighborhood: a.neighborhood,
        city: a.city,
        state: a.state
      },
      birthdate: request.buyerBirthdate
    }
  }
  if (request.boleto !== undefined && request.method !== "BOLETO") {
    errors.push({ field: "boleto", message: "boleto (charge terms) is only for BOLETO" })
  }
  if (request.method === "PIX" || request.method === "BOLETO") {
    if (request.buyerDoc === undefined) errors.unshift({ field: "buyerDoc", message: "buyerDoc is required" })
    // Sent with PIX or BOLETO it was dropped, whatever it said (99): paid at once, they have no installments.
    if (request.installments !== undefined && request.installments !== 1) {
      errors.push({
        field: "installments",
        message: "installments is only for CARD: PIX and BOLETO are paid at once (1)"
      })
    }
    const terms =
      request.method === "BOLETO"
        ? decodeTerms(request.boleto, "boleto", request.amount, (field, message) =>
            errors.push({ field, message: `${field} ${message}` })
          )
        : null
    if (errors.length > 0 || request.buyerDoc === undefined) return Either.left(errors)
    const payer = { ...common.payer, document: request.buyerDoc }
    return Either.right(
      request.method === "BOLETO"
        ? { ...common, method: "BOLETO", payer, terms, termsField: "boleto", pix: request.boleto?.pix === true }
        : { ...common, method: "PIX", payer }
    )
  }
  const installments = request.installments ?? 1
  if (!Number.isInteger(installments) || installments < 1 || installments > MAX_INSTALLMENTS) {
    errors.push({ field: "installments", message: `installments must be an integer from 1 to ${MAX_INSTALLMENTS}` })
  }
  let card: Extract<PaymentCommand, { method: "CARD" }>["card"] | undefined
  if (request.cardToken !== undefined) {
    // A token stands for the card: the raw card fields are ignored, whatever they hold.
    card = { _tag: "Token", token: request.cardToken }
  } else {
    if (request.buyerBirthdate === undefined)
      errors.push({ field: "buyerBirthdate", message: "buyerBirthdate is required for CARD unless cardToken is given" })
    const raw = checkRawCard(
      {
        holderName: ["cardHolderName", request.cardHolderName],
        number: ["cardNumber", request.cardNumber],
        expMonth: ["cardExpirationMonth", request.cardExpirationMonth],
        expYear: ["cardExpirationYear", request.cardExpirationYear],
        cvv: ["cardSecurityCode", request.cardSecurityCode],
        brand: ["cardBrand", request.cardBrand]
      },
      now
    )
    if (Either.isLeft(raw)) errors.push(...raw.left)
    else card = { _tag: "Raw", card: raw.right }
  }
  if (errors.length > 0 || card === undefined) return Either.left(errors)
  return Either.right({ ...common, method: "CARD", installments, card })
}

/** Field issues at their paths, so the envelope names each field as the caller sent it. */
const issues = (ast: AST.AST, actual: unknown, errors: ReadonlyArray<FieldError>) =>
  new ParseResult.Composite(
    ast,
    actual,
    errors.map(
      (e) =>
        new ParseResult.Pointer(
          e.field.split(".") as [string, ...Array<string>],
          actual,
          new ParseResult.Type(ast, actual, e.message)
        )
    ) as [ParseResult.Pointer, ...Array<ParseResult.Pointer>]
  )

const Command = Schema.declare((u): u is PaymentCommand => typeof u === "object" && u !== null && "method" in u, {
  identifier: "PaymentCommand"
})

/**
 * The wire body decoded into the command, once: broken rules become decode issues at their field's
 * path, so the envelope names every field (the OpenAPI document shows the wire side).
 */
export const toPaymentCommand = <A extends ProcessRequest, I>(wire: Schema.Schema<A, I>) =>
  Schema.transformOrFail(wire, Command, {
    strict: true,
    decode: (request, _, ast) =>
      Either.match(decodeProcess(request, new Date()), {
        onRight: ParseResult.succeed,
        onLeft: (errors) => ParseResult.fail(issues(ast, request, errors))
      }),
    encode: (_, __, ast, command) => ParseResult.fail(new ParseResult.Forbidden(ast, command, "one-way"))
  })

/** The tokenization body once its fields have their JSON types (the other rules are in its schema). */
export interface TokenizeRequest {
  readonly customerId: string
  readonly holderName: string
  readonly cardNumber: string
  readonly brand: string
  readonly expirationMonth: string
  readonly expirationYear: string
  readonly securityCode: string
}

const Tokenize = Schema.declare(
  (u): u is TokenizeCommand => typeof u === "object" && u !== null && "customerId" in u && "card" in u,
  { identifier: "TokenizeCommand" }
)

/** POST /api/payment-gateway/tokenize-card decoded into the core's TokenizeCommand: the card checked once. */
export const toTokenizeCommand = <A extends TokenizeRequest, I>(wire: Schema.Schema<A, I>) =>
  Schema.transformOrFail(wire, Tokenize, {
    strict: true,
    decode: (request, _, ast) =>
      Either.match(
        checkRawCard(
          {
            holderName: ["holderName", request.holderName],
            number: ["cardNumber", request.cardNumber],
            expMonth: ["expirationMonth", request.expirationMonth],
            expYear: ["expirationYear", request.expirationYear],
            cvv: ["securityCode", request.securityCode],
            brand: ["brand", request.brand]
          },
          new Date()
        ),
        {
          onRight: (card: RawCard) => ParseResult.succeed({ customerId: CustomerId.make(request.customerId), card }),
          onLeft: (errors) => ParseResult.fail(issues(ast, request, errors))
        }
      ),
    encode: (_, __, ast, command) => ParseResult.fail(new ParseResult.Forbidden(ast, command, "one-way"))
  })
