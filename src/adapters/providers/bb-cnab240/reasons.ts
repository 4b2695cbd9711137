/**
 * The words of FEBRABAN 240's rejection reasons (note C047, occurrence 03), so a rejected boleto says why
 * in words; a code not listed is reported as the bank sent it. Banks add their own: check against the
 * bank's manual at homologation (docs/providers.md "Boleto: banks by CNAB 240").
 */
const REJECTION_REASONS: Readonly<Record<string, string>> = {
  "01": "código do banco inválido",
  "02": "código do registro detalhe inválido",
  "03": "código do segmento inválido",
  "04": "código de movimento não permitido para a carteira",
  "05": "código de movimento inválido",
  "06": "tipo/número de inscrição do beneficiário inválidos",
  "07": "agência/conta/DV inválido",
  "08": "nosso número inválido",
  "09": "nosso número duplicado",
  "10": "carteira inválida",
  "16": "data de vencimento inválida",
  "17": "data de vencimento anterior à data de emissão",
  "20": "valor do título inválido",
  "21": "espécie do título inválida",
  "24": "data da emissão inválida",
  "26": "código de juros de mora inválido",
  "27": "valor/taxa de juros de mora inválido",
  "28": "código do desconto inválido",
  "29": "valor do desconto maior ou igual ao valor do título",
  "45": "nome do pagador não informado",
  "46": "tipo/número de inscrição do pagador inválidos",
  "48": "CEP inválido"
}

/** "08 nosso número inválido", or the code alone when it has no words here. */
export const rejectionReason = (code: string) =>
  REJECTION_REASONS[code] === undefined ? code : `${code} ${REJECTION_REASONS[code]}`
