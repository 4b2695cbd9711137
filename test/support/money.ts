import type { AppConfigShape } from "../../src/config/AppConfig.ts"
import { parseFee } from "../../src/domain/ledger.ts"

/**
 * The books the money tests compute by hand (CONTRACT-v1 §7's default fees): card 3.99 %, PIX 0.99 %,
 * boleto R$ 3,49; PIX available at once, boleto the next business day, card installments at 30-day steps
 * with a 10 % reserve for 30 days; a withdrawal paid and a sandbox dispute announced after 1 s.
 */
export const moneyConfig = (overrides: Partial<AppConfigShape["money"]> = {}): AppConfigShape["money"] => ({
  fees: { CARD: parseFee("3.99%")!, PIX: parseFee("0.99%")!, BOLETO: parseFee("349")! },
  schedule: { pixDays: 0, billetDays: 1, cardDays: 30, reserveDays: 30, reserve: { a: 10n, b: 100n } },
  withdrawalDelaySeconds: 1,
  disputeDelaySeconds: 1,
  ...overrides
})
