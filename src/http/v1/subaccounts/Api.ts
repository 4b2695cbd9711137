import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { LivemodeField } from "../../shared/livemode.ts"
import { Schema } from "effect"
import { Idempotent, ScopeResource } from "../../shared/annotations.ts"
import { BadRequest, Conflict, NotFound, UnprocessableEntity } from "../../shared/errors.ts"
import { payload } from "../../shared/payload.ts"
import { ApiTokenAuth } from "../security.ts"
import { CursorParam, Pagination } from "../transactions/Api.ts"
import { CreateSubaccountWire } from "./command.ts"

const bankAccountExample = {
  bank_code: "341",
  agency: "0001",
  agency_digit: null,
  account: "123456",
  account_digit: "7",
  type: "checking" as const
}

const createExample: CreateSubaccountWire = {
  name: "Loja Parceira Ltda",
  document: "12.ABC.345/01DE-35",
  email: "financeiro@parceira.example",
  phone: "(11) 3123-4567",
  bank_account: { ...bankAccountExample, agency_digit: "" }
}

/** The v1 subaccount of CONTRACT-v1 §8. */
export const V1Subaccount = Schema.Struct({
  livemode: LivemodeField,
  id: Schema.String,
  name: Schema.String,
  document: Schema.String.annotations({ description: "without punctuation, letters of a CNPJ in upper case" }),
  document_type: Schema.Literal("cpf", "cnpj"),
  email: Schema.String,
  phone: Schema.String.annotations({ description: "10 or 11 digits, without +55" }),
  bank_account: Schema.Struct({
    bank_code: Schema.String,
    agency: Schema.String,
    agency_digit: Schema.NullOr(Schema.String).annotations({ description: "null when the branch has none" }),
    account: Schema.String,
    account_digit: Schema.String,
    type: Schema.Literal("checking", "savings")
  }),
  status: Schema.Literal("active"),
  created_at: Schema.String,
  updated_at: Schema.String
}).annotations({
  identifier: "V1Subaccount",
  examples: [
    {
      id: "0b6c3f6e-8f6a-4d5e-9a51-3c1f3f0f6a10",
      name: "Loja Parceira Ltda",
      document: "12ABC34501DE35",
      document_type: "cnpj",
      email: "financeiro@parceira.example",
      phone: "1131234567",
      bank_account: bankAccountExample,
      status: "active",
      created_at: "2026-11-22T09:15:00-03:00",
      updated_at: "2026-11-22T09:15:00-03:00"
    }
  ]
})

const Success = <A, I>(data: Schema.Schema<A, I>) => Schema.Struct({ success: Schema.Literal(true), data })

const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(
    Schema.String.annotations({
      description: "1–255 printable characters (a UUID v4 per attempt is recommended); remembered 24 hours per account"
    })
  )
})

export const SubaccountListParams = Schema.Struct({
  page: Schema.optional(Schema.String),
  cursor: CursorParam,
  per_page: Schema.optional(Schema.String),
  document: Schema.optional(Schema.String.annotations({ description: "CPF or CNPJ, punctuation allowed" })),
  status: Schema.optional(Schema.String.annotations({ description: "active" })),
  created_from: Schema.optional(Schema.String.annotations({ description: "YYYY-MM-DD (São Paulo), inclusive" })),
  created_to: Schema.optional(Schema.String.annotations({ description: "YYYY-MM-DD (São Paulo), inclusive" }))
})

const id = HttpApiSchema.param("id", Schema.String)

export class V1SubaccountsApi extends HttpApiGroup.make("v1Subaccounts")
  .annotate(ScopeResource, "subaccounts")
  .add(
    HttpApiEndpoint.post("create", "/subaccounts")
      .setPayload(payload(CreateSubaccountWire.annotations({ examples: [createExample] })))
      .setHeaders(IdempotencyHeaders)
      .annotate(Idempotent, true)
      .addSuccess(Success(V1Subaccount), { status: 201 })
      .addError(BadRequest)
      .addError(Conflict)
      .addError(UnprocessableEntity)
      .annotate(OpenApi.Summary, "Create a subaccount (a recipient of split payments)")
      .annotate(
        OpenApi.Description,
        "201 with the active subaccount. 400 names every broken field by its path (`document`, `phone`, " +
          "`bank_account.agency`): document a CPF or CNPJ (numeric or alphanumeric) with valid check digits, " +
          "email, phone 10–11 digits after removing ()- and +55, bank_code 3 digits, agency 1–5 digits, " +
          "agency_digit 0–1 character, account 1–12 digits, account_digit 1 character, type checking or " +
          "savings (bank fields are strings: leading zeros count). 409 `subaccount_exists` when the account " +
          "already has a subaccount with this document. Idempotency-Key as for transactions."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/subaccounts")
      .setUrlParams(SubaccountListParams)
      .addSuccess(
        Schema.Struct({ success: Schema.Literal(true), data: Schema.Array(V1Subaccount), pagination: Pagination })
      )
      .addError(BadRequest)
      .annotate(
        OpenApi.Description,
        "Newest first. `page` from 1, `per_page` 1–100 (default 20); filters `document`, `status` (`active`), " +
          "`created_from`, `created_to` (YYYY-MM-DD, São Paulo, inclusive). An unknown value names its " +
          "parameter (400)."
      )
  )
  .add(
    HttpApiEndpoint.get("get")`/subaccounts/${id}`
      .addSuccess(Success(V1Subaccount))
      .addError(NotFound)
      .annotate(OpenApi.Description, "The subaccount; 404 when unknown, malformed or of another account.")
  )
  .middleware(ApiTokenAuth)
  .annotate(OpenApi.Title, "Subaccounts (v1)") {}
