/**
 * The settings of live boleto by the bank's CNAB 240 files (docs/providers.md "Boleto: banks by CNAB 240")
 * that the tests of that bank share: its agreement, account and company, and the two directories files are
 * exchanged through. The cycle's settings are each test's own.
 */
export const bankByFilesEnv = (remessaDir: string, retornoDir: string) => ({
  LIVE_BOLETO_PROVIDER: "bb-cnab240",
  CNAB_AGREEMENT: "1234567",
  CNAB_AGENCY: "1234-5",
  CNAB_ACCOUNT: "123456-7",
  CNAB_COMPANY_DOCUMENT: "11.222.333/0001-81",
  CNAB_COMPANY_NAME: "Payment Gateway",
  CNAB_REMESSA_DIR: remessaDir,
  CNAB_RETORNO_DIR: retornoDir
})
