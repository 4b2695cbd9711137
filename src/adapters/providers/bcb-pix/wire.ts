import { Schema } from "effect"

// The API Pix 2.9.0 payloads the adapter reads (../shared/specs/bcb-pix-api-2.9.0.yaml, components.schemas),
// decoded at the edge. Only the fields we use are declared; new fields a PSP adds are tolerated, as the
// spec's versioning rules require ("new fields ... are backward-compatible").

const Valor = Schema.String.pipe(Schema.pattern(/^\d{1,10}\.\d{2}$/))

/**
 * `"123.45"` ↔ 12345 centavos, exactly (no float on the way). The wire's `Valor` always has two decimals; a
 * shorter fraction ("10.5", "10") is still read right should that guard ever be relaxed, and anything else
 * (a third decimal, a sign, an exponent) is a defect, not a number to guess.
 */
export const toCentavos = (valor: string): number => {
  const match = /^(\d+)(?:\.(\d{0,2}))?$/.exec(valor)
  if (match === null) throw new Error(`not an API Pix amount: ${JSON.stringify(valor)}`)
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"))
}
export const toValor = (centavos: number): string =>
  `${Math.trunc(centavos / 100)}.${String(centavos % 100).padStart(2, "0")}`

export const CobStatus = Schema.Literal("ATIVA", "CONCLUIDA", "REMOVIDA_PELO_USUARIO_RECEBEDOR", "REMOVIDA_PELO_PSP")

export const DevolucaoStatus = Schema.Literal("EM_PROCESSAMENTO", "DEVOLVIDO", "NAO_REALIZADO")

export const Devolucao = Schema.Struct({
  id: Schema.String,
  rtrId: Schema.optional(Schema.String),
  valor: Valor,
  horario: Schema.optional(
    Schema.Struct({ solicitacao: Schema.optional(Schema.String), liquidacao: Schema.optional(Schema.String) })
  ),
  status: DevolucaoStatus,
  motivo: Schema.optional(Schema.String)
})
export type Devolucao = typeof Devolucao.Type

export const Pix = Schema.Struct({
  endToEndId: Schema.String,
  txid: Schema.optional(Schema.String),
  valor: Valor,
  horario: Schema.String,
  devolucoes: Schema.optional(Schema.Array(Devolucao))
})
export type Pix = typeof Pix.Type

export const CobGerada = Schema.Struct({
  txid: Schema.String,
  status: CobStatus,
  valor: Schema.Struct({ original: Valor }),
  pixCopiaECola: Schema.optional(Schema.String),
  location: Schema.optional(Schema.String),
  pix: Schema.optional(Schema.Array(Pix))
})
export type CobGerada = typeof CobGerada.Type

/** A due-date charge as the PSP answers it (CobVGerada / CobVCompleta): a bolepix's PIX side. */
export const CobVGerada = Schema.Struct({
  txid: Schema.String,
  status: CobStatus,
  calendario: Schema.Struct({ dataDeVencimento: Schema.String }),
  valor: Schema.Struct({ original: Valor }),
  pixCopiaECola: Schema.optional(Schema.String),
  pix: Schema.optional(Schema.Array(Pix))
})
export type CobVGerada = typeof CobVGerada.Type

export const PixConsultados = Schema.Struct({
  parametros: Schema.Struct({
    paginacao: Schema.Struct({
      paginaAtual: Schema.Number,
      quantidadeDePaginas: Schema.Number
    })
  }),
  pix: Schema.optionalWith(Schema.Array(Pix), { default: () => [] })
})

/** The notification the PSP posts to `{webhookUrl}/pix` (WebhookPixBody). */
export const WebhookPix = Schema.Struct({ pix: Schema.Array(Pix) })

/** RFC 7807 problem (`Problema`); `type` ends in the API's `TipoErro`. */
export const Problema = Schema.Struct({
  type: Schema.String,
  title: Schema.optional(Schema.String),
  status: Schema.optional(Schema.Number),
  detail: Schema.optional(Schema.String)
})

export const Token = Schema.Struct({
  access_token: Schema.String,
  expires_in: Schema.optionalWith(Schema.Union(Schema.Number, Schema.NumberFromString), {
    default: () => 300
  })
})
