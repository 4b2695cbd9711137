import { accessSync, constants, statSync } from "node:fs"
import { Config } from "effect"
import { isValidBuyerDocument, normalizeDocument } from "../../../domain/document.ts"
import type { Agreement } from "./profile.ts"

/** The bank agreement and the file exchange, from the `CNAB_*` variables (docs/configuration.md). */
export interface CnabConfig {
  readonly agreement: Agreement
  readonly remessaDir: string
  readonly retornoDir: string
  readonly remessaEveryMs: number
  readonly pollEveryMs: number
  /** The NSA the bank's first retorno carries (the sequence starts there). */
  readonly firstRetorno: number
}

const digits = (name: string, length: number, what: string) =>
  Config.string(name).pipe(
    Config.map((v) => v.trim()),
    Config.validate({
      message: `${name} must be ${what} (${length} digits)`,
      validation: (v) => new RegExp(`^\\d{${length}}$`).test(v)
    })
  )

/** "1234-5": the number and its check digit (a digit or X), as the bank prints them. */
const withDigit = (name: string, length: number) =>
  Config.string(name).pipe(
    Config.map((v) => v.trim().toUpperCase()),
    Config.validate({
      message: `${name} must be up to ${length} digits, a dash and the check digit (e.g. 1234-5)`,
      validation: (v) => new RegExp(`^\\d{1,${length}}-[0-9X]$`).test(v)
    }),
    Config.map((v) => ({ number: v.slice(0, -2), digit: v.slice(-1) }))
  )

/** A directory this process can read and write: checked at start, so a typo stops start-up naming it. */
const directory = (name: string) =>
  Config.string(name).pipe(
    Config.validate({
      message: `${name} must be an existing directory this process can read and write`,
      validation: (path) => {
        try {
          accessSync(path, constants.R_OK | constants.W_OK)
          return statSync(path).isDirectory()
        } catch {
          return false
        }
      }
    })
  )

const positive = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be a positive whole number`, validation: (n) => n > 0 })
  )

export const cnabConfig: Config.Config<CnabConfig> = Config.all({
  agreement: digits("CNAB_AGREEMENT", 7, "the 7-digit convênio de cobrança"),
  wallet: digits("CNAB_WALLET", 2, "the wallet (carteira)").pipe(Config.withDefault("17")),
  walletVariation: digits("CNAB_WALLET_VARIATION", 3, "the wallet's variation").pipe(Config.withDefault("019")),
  agency: withDigit("CNAB_AGENCY", 5),
  account: withDigit("CNAB_ACCOUNT", 12),
  companyDocument: Config.string("CNAB_COMPANY_DOCUMENT").pipe(
    Config.map(normalizeDocument),
    Config.validate({
      message: "CNAB_COMPANY_DOCUMENT must be the agreement holder's CPF or CNPJ",
      validation: isValidBuyerDocument
    })
  ),
  companyName: Config.string("CNAB_COMPANY_NAME").pipe(
    Config.validate({
      message: "CNAB_COMPANY_NAME must be the agreement holder's name",
      validation: (v) => v.trim() !== ""
    })
  ),
  remessaDir: directory("CNAB_REMESSA_DIR"),
  retornoDir: directory("CNAB_RETORNO_DIR"),
  cycleMinutes: positive("CNAB_REMESSA_CYCLE_MINUTES", 60),
  pollSeconds: positive("CNAB_RETORNO_POLL_SECONDS", 60),
  firstRetorno: positive("CNAB_RETORNO_FIRST_NSA", 1)
}).pipe(
  Config.map((c) => ({
    agreement: {
      agreement: c.agreement,
      wallet: c.wallet,
      walletVariation: c.walletVariation,
      agency: c.agency.number,
      agencyDigit: c.agency.digit,
      account: c.account.number,
      accountDigit: c.account.digit,
      companyDocument: c.companyDocument,
      companyName: c.companyName.trim()
    },
    remessaDir: c.remessaDir,
    retornoDir: c.retornoDir,
    remessaEveryMs: c.cycleMinutes * 60_000,
    pollEveryMs: c.pollSeconds * 1_000,
    firstRetorno: c.firstRetorno
  }))
)
