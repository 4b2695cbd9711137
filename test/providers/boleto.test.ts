import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer, ManagedRuntime, Option } from "effect"
import { describe } from "vitest"
import { BbCnab240BoletoLive } from "../../src/adapters/providers/bb-cnab240/BbCnab240Boleto.ts"
import { BbCnab240FilesLive } from "../../src/adapters/providers/bb-cnab240/BbCnab240Files.ts"
import { transactionIdOf } from "../../src/adapters/providers/bb-cnab240/retorno.ts"
import { SandboxBoletoLive } from "../../src/adapters/providers/sandbox/SandboxBoleto.ts"
import { OUTAGE_AMOUNT } from "../../src/adapters/providers/sandbox/testCards.ts"
import { AppConfig } from "../../src/config/AppConfig.ts"
import { addCalendarDays } from "../../src/domain/calendar.ts"
import { startOfDayInSaoPaulo } from "../../src/domain/time.ts"
import { BankFiles, type BankOccurrence } from "../../src/ports/BankFiles.ts"
import { BoletoProvider, SandboxBank } from "../../src/ports/BoletoProvider.ts"
import { answerRemessa } from "../fakes/bank/bank.ts"
import { bankByFilesEnv } from "../support/bankByFiles.ts"
import { migratedDatabase } from "../support/databaseLayer.ts"
import { boletoKit, type BoletoKitSubject } from "./boleto.kit.ts"

/** The kit's layer: the port, out of a runtime the subject's levers share (one database for both). */
const portOf = <R>(runtime: ManagedRuntime.ManagedRuntime<BoletoProvider | R, never>) =>
  Layer.effect(
    BoletoProvider,
    Effect.promise(() => runtime.runPromise(BoletoProvider))
  )

/** A tenant, as a bank adapter that keeps titles by account needs one to exist. */
const account = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const id = randomUUID()
  yield* sql`insert into accounts (id, name, email, password_hash) values (${id}, 'Loja', ${`${id}@example.com`}, 'x')`
  return id
}).pipe(Effect.orDie)

// The sandbox bank, its side door SandboxBank.pay as the lever, with no confirmation delay: a payment is reported as
// soon as it is made. It is told the amount paid (the service computes what the terms ask: src/app/Sandbox.ts), and
// a charge of its outage amount finds it unavailable.
describe("sandbox", () => {
  let runtime: ManagedRuntime.ManagedRuntime<BoletoProvider | SandboxBank | SqlClient.SqlClient, never>
  boletoKit(
    async (): Promise<BoletoKitSubject> => {
      const noDelay = Layer.effect(
        AppConfig,
        Effect.map(AppConfig, (config) => ({ ...config, boletoConfirmationDelaySeconds: 0 }))
      )
      runtime = ManagedRuntime.make(
        SandboxBoletoLive.pipe(Layer.provide(noDelay), Layer.provideMerge(migratedDatabase()))
      )
      return {
        name: "sandbox",
        layer: portOf(runtime),
        accountId: await runtime.runPromise(account),
        bank: {
          computesTerms: false,
          pay: (payments) =>
            runtime.runPromise(
              Effect.forEach(
                payments,
                ({ request, paidOn, amount }) =>
                  Effect.flatMap(SandboxBank, (bank) =>
                    bank.pay(request.transactionId, amount ?? request.amount, paidOn)
                  ),
                { discard: true }
              )
            )
        },
        outageAmount: OUTAGE_AMOUNT
      }
    },
    () => runtime.dispose()
  )
})

// Banco do Brasil by CNAB 240 files (docs/providers.md "Boleto: banks by CNAB 240"). `register` queues the title;
// the bank learns of it by the remessa and reports its payment by retorno, which the BankFiles port reads. The lever:
// the titles' transactions recorded PENDING (the remessa carries no other), one remessa cut by the adapter's
// BankFiles, the fake bank paying those titles in its retorno (computing what each asks from the terms the remessa
// registered, test/fakes/bank/bank.ts), and that retorno read by the adapter's own reader. Its `register` never
// reaches the bank, so there is no lever to make the bank unreachable.
describe("bb-cnab240 over the fake bank", () => {
  let runtime: ManagedRuntime.ManagedRuntime<BoletoProvider | BankFiles | SqlClient.SqlClient, never>
  const dirs = [mkdtempSync(join(tmpdir(), "boleto-kit-remessa-")), mkdtempSync(join(tmpdir(), "boleto-kit-retorno-"))]
  /** Every paid occurrence of every retorno the fake bank wrote. */
  const filed: Array<BankOccurrence> = []
  boletoKit(
    async (): Promise<BoletoKitSubject> => {
      const config = ConfigProvider.fromMap(new Map(Object.entries(bankByFilesEnv(dirs[0]!, dirs[1]!))))
      runtime = ManagedRuntime.make(
        Layer.mergeAll(BbCnab240BoletoLive, BbCnab240FilesLive).pipe(
          // A setting missing or refused is a defect of the test, as at start-up.
          Layer.provide(Layer.setConfigProvider(config)),
          Layer.orDie,
          Layer.provideMerge(migratedDatabase())
        )
      )
      const accountId = await runtime.runPromise(account)
      return {
        name: "bb-cnab240",
        layer: portOf(runtime),
        accountId,
        bank: {
          computesTerms: true,
          pay: (payments) =>
            runtime.runPromise(
              Effect.gen(function* () {
                const sql = yield* SqlClient.SqlClient
                const files = yield* BankFiles
                for (const { request } of payments) {
                  yield* sql`insert into transactions (id, account_id, method, amount, status)
                    values (${request.transactionId}, ${accountId}, 'BOLETO', ${request.amount}, 'PENDING')`
                }
                const cut = yield* files.cutRemessa
                if (Option.isNone(cut) || cut.value.titles !== payments.length) {
                  return yield* Effect.dieMessage(`the remessa carries ${Option.getOrUndefined(cut)?.titles} titles`)
                }
                const byId = new Map(payments.map((p) => [p.request.transactionId, p]))
                const retorno = answerRemessa(readFileSync(cut.value.path, "latin1"), cut.value.fileNumber, (title) => {
                  const p = byId.get(transactionIdOf(title.companyUse) ?? "")
                  if (p === undefined) throw new Error(`the remessa carries a title not paid here: ${title.ourNumber}`)
                  // A fee and a credit the day after, so that what the buyer paid and when stand apart from what
                  // the gateway is credited and when.
                  return {
                    movement: "06",
                    paidOn: p.paidOn,
                    creditOn: addCalendarDays(p.paidOn, 1),
                    fee: 180,
                    ...(p.amount === undefined ? {} : { paid: p.amount })
                  }
                })
                const file = yield* files.read(retorno)
                if (file.rejected.length > 0) return yield* Effect.dieMessage(JSON.stringify(file.rejected))
                filed.push(...file.occurrences.filter((o) => o.kind === "paid"))
              }).pipe(Effect.orDie)
            ),
          // As BoletoFiles applies a paid occurrence: what the bank took, on the day of the occurrence, counted from
          // its credit date once that has come.
          filed: async (ids) => {
            const now = new Date()
            return filed
              .filter((o) => ids.includes(o.transactionId!))
              .map((o) => {
                const credit = o.creditOn === null ? null : startOfDayInSaoPaulo(o.creditOn)
                return {
                  transactionId: o.transactionId!,
                  amount: o.paid,
                  paidOn: o.occurredOn,
                  paidAt: credit !== null && credit.getTime() <= now.getTime() ? credit : now
                }
              })
          }
        }
      }
    },
    async () => {
      await runtime.dispose()
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
    }
  )
})
