/**
 * `npm run fake -- bank <remessa file> <retorno file> [--nsa N] [--paid-every K]`: answers a remessa
 * as a bank would, every K-th title paid on its due date (06), the others registered (02).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { answerRemessa } from "./bank.ts"

const [, , , remessaPath, retornoPath, ...rest] = process.argv
if (remessaPath === undefined || retornoPath === undefined) {
  process.stderr.write("usage: npm run fake -- bank <remessa> <retorno> [--nsa N] [--paid-every K]\n")
  process.exit(2)
}
const option = (name: string, fallback: number) => {
  const i = rest.indexOf(name)
  return i === -1 ? fallback : Number(rest[i + 1])
}
const every = option("--paid-every", 2)
const retorno = answerRemessa(readFileSync(remessaPath, "latin1"), option("--nsa", 1), (t) =>
  t.index % every === 0 ? { movement: "06", reasons: ["04"] } : { movement: "02" }
)
writeFileSync(retornoPath, retorno, "latin1")
process.stdout.write(`bank: answered ${remessaPath} in ${retornoPath}\n`)
