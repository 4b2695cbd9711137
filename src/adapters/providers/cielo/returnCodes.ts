import type { DeclineCode } from "../../../ports/Acquirer.ts"

/**
 * Cielo API 3.0's `ReturnCode` → our decline codes (CONTRACT §4/§7), documented in docs/providers.md
 * "Cielo return codes". Sources: Cielo's sandbox table (last digit of the card: 05, 57, 78, 99, 77, 70)
 * and its ABECS return-code reference (docs.cielo.com.br/ecommerce-cielo/reference/api-codes). Where the
 * sandbox and ABECS disagree (57: "cartão expirado" in the sandbox, "transação não permitida" in ABECS)
 * the sandbox is followed, since it is the only one a test can observe. Any code not listed is a plain
 * `card_declined`: the buyer is told the card was refused, never a reason we cannot stand behind.
 */
export const APPROVED_RETURN_CODES: ReadonlySet<string> = new Set(["00", "0", "4", "6"])

/**
 * A void's `ReturnCode` when Cielo made it: "9" a full void, "0" a partial one (the manual's "Cancelamento
 * total" and "Cancelamento parcial" answers; docs.cielo.com.br "Códigos de Retorno de Cancelamento": 0
 * "Cancelamento aprovado com sucesso", 9 "Solicitação de cancelamento total aprovada com sucesso"). Every
 * other code of that table is a void not made or not known (5 "Erro de efetivação", 98 "Timeout", …).
 */
export const VOID_APPROVED_RETURN_CODES: ReadonlySet<string> = new Set(["0", "9"])

export const CIELO_DECLINES: ReadonlyMap<string, DeclineCode> = new Map<string, DeclineCode>([
  ["05", "card_declined"], // Não autorizada (sandbox digit 2)
  ["57", "expired_card"], // Cartão expirado (sandbox digit 3)
  ["78", "card_declined"], // Cartão bloqueado (sandbox digit 5)
  ["99", "card_declined"], // Time out at the issuer (sandbox digit 6): a decline, never failed over
  ["77", "card_declined"], // Cancelado (sandbox digit 7)
  ["70", "card_declined"], // Problemas com o cartão (sandbox digit 8)
  ["51", "insufficient_funds"], // Saldo insuficiente
  ["54", "expired_card"], // Cartão vencido
  ["N7", "incorrect_cvc"], // Código de segurança inválido
  ["82", "incorrect_cvc"], // Cartão inválido (CVV) at some issuers
  ["59", "fraud_suspected"], // Suspeita de fraude
  ["FD", "fraud_suspected"], // Negada pelo antifraude
  ["BL", "card_declined"], // Limite diário excedido
  ["41", "card_declined"], // Cartão perdido
  ["43", "card_declined"], // Cartão roubado
  ["14", "card_declined"], // Cartão inválido
  ["62", "card_declined"] // Cartão com restrição temporária
])

export const cieloDecline = (returnCode: string | undefined): DeclineCode =>
  (returnCode === undefined ? undefined : CIELO_DECLINES.get(returnCode)) ?? "card_declined"
