/**
 * A fake PSP speaking the Banco Central's API Pix 2.9.0 (../shared/specs/bcb-pix-api-2.9.0.yaml) as one of
 * the PSP profiles exposes it: HTTPS with a client certificate required (mTLS), OAuth2 client credentials
 * in the profile's style, the profile's path prefix and extra headers or parameters enforced, `cob`, `cobv`,
 * `pix`, `devolucao` and `webhook` resources, notifications to `{webhookUrl}/pix` signed by the PSP's
 * client certificate, and faults on demand. It follows the spec and the PSPs' documentation, not our
 * adapter: its quirk table below is written from ../shared/notes/rails-research.md §1.4 independently of
 * src/adapters/providers/bcb-pix/profiles. What it does not model is in docs/providers.md.
 */
import { randomBytes, randomUUID } from "node:crypto"
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http"
import { createServer, request as httpsRequest } from "node:https"
import type { AddressInfo, Socket } from "node:net"
import type { PixTestCertificates } from "./certs.ts"

/** What each PSP demands beyond the spec (rails-research §1.4). */
export interface FakeQuirks {
  readonly pathPrefix: string
  readonly tokenPath: string
  readonly tokenAuth: "basic" | "form"
  readonly tokenBodyJson: boolean
  readonly grantTypeInQuery: boolean
  readonly appKeyQuery: string | null
  readonly appKeyHeader: string | null
  readonly correlationHeader: string | null
  readonly accountHeader: string | null
}

export const fakeQuirks: Readonly<Record<string, FakeQuirks>> = {
  efi: q("/v2", "/oauth/token", "basic", { tokenBodyJson: true }),
  inter: q("/pix/v2", "/oauth/v2/token", "form", { accountHeader: "x-conta-corrente" }),
  sicoob: q("/pix/api/v2", "/auth/realms/cooperado/protocol/openid-connect/token", "form"),
  bb: q("/pix/v2", "/oauth/token", "basic", { appKeyQuery: "gw-dev-app-key" }),
  itau: q("/pix_recebimentos/v2", "/api/oauth/jwt", "form", {
    appKeyHeader: "x-itau-apikey",
    correlationHeader: "x-itau-correlationid"
  }),
  santander: q("/api/v1", "/oauth/token", "form", { grantTypeInQuery: true })
}

function q(
  pathPrefix: string,
  tokenPath: string,
  tokenAuth: "basic" | "form",
  extra: Partial<FakeQuirks> = {}
): FakeQuirks {
  return {
    pathPrefix,
    tokenPath,
    tokenAuth,
    tokenBodyJson: false,
    grantTypeInQuery: false,
    appKeyQuery: null,
    appKeyHeader: null,
    correlationHeader: null,
    accountHeader: null,
    ...extra
  }
}

export type Fault = "timeout" | "5xx" | "commit-then-drop" | "401"
export type NotificationMode = "normal" | "drop" | "hold"

export interface Exchange {
  readonly method: string
  /** The path as the spec names it (prefix removed), with the parameters' values. */
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  readonly requestBody: unknown
  readonly status: number
  readonly responseBody: unknown
}

interface Cob {
  txid: string
  revisao: number
  criacao: string
  expiracao: number
  status: "ATIVA" | "CONCLUIDA" | "REMOVIDA_PELO_USUARIO_RECEBEDOR" | "REMOVIDA_PELO_PSP"
  valor: string
  chave: string
  devedor?: unknown
  locId: number
  location: string
  pixCopiaECola: string
}

/** A due-date charge (`cobv`, a bolepix's PIX side): what was sent, kept as sent. */
interface Cobv {
  txid: string
  revisao: number
  criacao: string
  dataDeVencimento: string
  validadeAposVencimento: number
  status: Cob["status"]
  valor: Record<string, unknown> & { original: string }
  chave: string
  devedor: unknown
  locId: number
  location: string
  pixCopiaECola: string
}

interface Devolucao {
  id: string
  rtrId: string
  valor: string
  horario: { solicitacao: string; liquidacao?: string }
  status: "EM_PROCESSAMENTO" | "DEVOLVIDO" | "NAO_REALIZADO"
  motivo?: string
}

interface Received {
  endToEndId: string
  txid?: string
  valor: string
  horario: string
  chave: string
  devolucoes: Array<Devolucao>
  /** Left out of `GET /pix` (a PSP's listing lag): found only by `GET /cob/{txid}` or a notice. */
  unlisted?: boolean
  /** Listed under its charge (`GET /cob/{txid}`'s `pix`) without its `txid`, which the spec leaves optional. */
  bareInCob?: boolean
  /** Not listed under its charge (`CobCompleta.pix` is optional: a PSP may leave it out). */
  notInCob?: boolean
}

export interface FakePspOptions {
  readonly profile: string
  readonly certificates: PixTestCertificates
  readonly clientId?: string
  readonly clientSecret?: string
  readonly appKey?: string
  readonly account?: string
  readonly pixKey?: string
  /** Seconds a token lives (the spec leaves it to the PSP). */
  readonly tokenTtlSeconds?: number
  readonly port?: number
  /** Notify webhooks without a client certificate (Efí's `x-skip-mtls-checking` registration). */
  readonly webhookWithoutClientCert?: boolean
}

const ISPB = "99999008"
const problem = (res: ServerResponse, status: number, tipo: string, title: string, detail?: string) => {
  const body = {
    type: `https://pix.bcb.gov.br/api/v2/error/${tipo}`,
    title,
    status,
    ...(detail === undefined ? {} : { detail })
  }
  res.writeHead(status, { "content-type": "application/problem+json" })
  res.end(JSON.stringify(body))
  return body
}

// --- BR Code (EMV MPM) written here, independently of the gateway's own encoder ----------------------------
const tlv = (id: string, value: string) => `${id}${String(value.length).padStart(2, "0")}${value}`
const crc16 = (s: string) => {
  let crc = 0xffff
  for (const byte of Buffer.from(s, "utf8")) {
    crc ^= byte << 8
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc.toString(16).toUpperCase().padStart(4, "0")
}
/** A dynamic BR Code: the payer's app fetches the charge from `location` (field 26.25); no amount or txid. */
const dynamicBrCode = (location: string, name: string, city: string) => {
  const body =
    tlv("00", "01") +
    tlv("01", "12") +
    tlv("26", tlv("00", "br.gov.bcb.pix") + tlv("25", location)) +
    tlv("52", "0000") +
    tlv("53", "986") +
    tlv("58", "BR") +
    tlv("59", name) +
    tlv("60", city) +
    tlv("62", tlv("05", "***")) +
    "6304"
  return body + crc16(body)
}

const TXID = /^[a-zA-Z0-9]{26,35}$/
const E2E = /^[a-zA-Z0-9]{32}$/
const DEV_ID = /^[a-zA-Z0-9]{1,35}$/
const VALOR = /^\d{1,10}\.\d{2}$/
const cents = (valor: string) => Math.round(Number(valor) * 100)
const valorOf = (c: number) => `${Math.trunc(c / 100)}.${String(c % 100).padStart(2, "0")}`

export const startFakePsp = async (options: FakePspOptions) => {
  const quirks = fakeQuirks[options.profile]
  if (quirks === undefined) throw new Error(`unknown profile ${options.profile}`)
  const clientId = options.clientId ?? "fake-client-id"
  const clientSecret = options.clientSecret ?? "fake-client-secret"
  const appKey = options.appKey ?? "fake-app-key"
  const account = options.account ?? "12345678"
  const pixKey = options.pixKey ?? "7d9f0335-8dcc-4054-9bf9-0dbd61d36906"
  const certs = options.certificates

  const tokens = new Map<string, number>()
  const cobs = new Map<string, Cob>()
  const cobvs = new Map<string, Cobv>()
  const received = new Map<string, Received>()
  const webhooks = new Map<string, string>()
  const exchanges: Array<Exchange> = []
  const faults: Array<{ match: string; fault: Fault }> = []
  const held: Array<Received> = []
  const counters = { tokensIssued: 0, requests: 0, notificationsSent: 0 }
  let notificationMode: NotificationMode = "normal"
  // How notices are sent: with the PSP's client certificate or not, and from which local address.
  let notifier: { clientCert: boolean; from?: string } = { clientCert: !options.webhookWithoutClientCert }
  let locSeq = 0
  const sockets = new Set<Socket>()

  const now = () => new Date()
  const newE2e = () => {
    const t = now()
    const stamp = t.toISOString().replace(/[-:T]/g, "").slice(0, 12)
    return `E${ISPB}${stamp}${randomBytes(8).toString("hex").slice(0, 11)}`.slice(0, 32).padEnd(32, "x")
  }

  const pixJson = (r: Received) => ({
    endToEndId: r.endToEndId,
    ...(r.txid === undefined ? {} : { txid: r.txid }),
    valor: r.valor,
    chave: r.chave,
    horario: r.horario,
    ...(r.devolucoes.length === 0 ? {} : { devolucoes: r.devolucoes })
  })

  const inCobJson = (r: Received) => {
    const { txid: _, ...bare } = pixJson(r)
    return r.bareInCob === true ? bare : pixJson(r)
  }

  /** A concluded charge's payments as listed under it; left out when none of them is (`notInCob`). */
  const inCobList = (c: { readonly status: string; readonly txid: string }) => {
    const listed = [...received.values()].filter((r) => r.txid === c.txid && r.notInCob !== true)
    return c.status === "CONCLUIDA" && listed.length > 0 ? { pix: listed.map(inCobJson) } : {}
  }

  const cobJson = (c: Cob) => ({
    calendario: { criacao: c.criacao, expiracao: c.expiracao },
    txid: c.txid,
    revisao: c.revisao,
    loc: { id: c.locId, location: c.location, tipoCob: "cob", criacao: c.criacao, txid: c.txid },
    location: c.location,
    status: c.status,
    ...(c.devedor === undefined ? {} : { devedor: c.devedor }),
    valor: { original: c.valor },
    chave: c.chave,
    pixCopiaECola: c.pixCopiaECola,
    ...inCobList(c)
  })

  const cobvJson = (c: Cobv) => ({
    calendario: {
      criacao: c.criacao,
      dataDeVencimento: c.dataDeVencimento,
      validadeAposVencimento: c.validadeAposVencimento
    },
    txid: c.txid,
    revisao: c.revisao,
    loc: { id: c.locId, location: c.location, tipoCob: "cobv", criacao: c.criacao, txid: c.txid },
    location: c.location,
    status: c.status,
    devedor: c.devedor,
    recebedor: {
      cnpj: "99999008000105",
      nome: "LOJA FAKE PSP",
      logradouro: "Rua Fake, 1",
      cidade: "Sao Paulo",
      uf: "SP",
      cep: "01001000"
    },
    valor: c.valor,
    chave: c.chave,
    pixCopiaECola: c.pixCopiaECola,
    ...inCobList(c)
  })

  // --- notifications ------------------------------------------------------------------------------------
  const post = (url: string, body: unknown) =>
    new Promise<number>((resolve) => {
      const target = new URL(url)
      const req = httpsRequest(
        target,
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          ca: certs.ca.certPem,
          ...(notifier.clientCert ? { cert: certs.webhookClient.certPem, key: certs.webhookClient.keyPem } : {}),
          ...(notifier.from === undefined ? {} : { localAddress: notifier.from }),
          // The receiver's certificate is the operator's; the fake does not judge it.
          rejectUnauthorized: false
        },
        (res) => {
          res.resume()
          res.on("end", () => resolve(res.statusCode ?? 0))
        }
      )
      req.on("error", () => resolve(0))
      req.end(JSON.stringify(body))
    })

  const notify = async (items: ReadonlyArray<Received>) => {
    if (items.length === 0) return []
    if (notificationMode === "drop") return []
    if (notificationMode === "hold") {
      held.push(...items)
      return []
    }
    const results: Array<number> = []
    for (const url of new Set(webhooks.values())) {
      counters.notificationsSent++
      results.push(await post(`${url}/pix`, { pix: items.map(pixJson) }))
    }
    return results
  }

  // --- faults ---------------------------------------------------------------------------------------------
  const takeFault = (method: string, path: string): Fault | undefined => {
    const at = faults.findIndex((f) => f.match === "*" || `${method} ${path}`.startsWith(f.match))
    if (at < 0) return undefined
    return faults.splice(at, 1)[0]!.fault
  }

  // --- HTTP ------------------------------------------------------------------------------------------------
  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
      req.on("error", reject)
    })

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" })
    res.end(JSON.stringify(body))
    return body
  }

  const handleToken = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const raw = await readBody(req)
    let fields: Record<string, string> = {}
    if (quirks.tokenBodyJson) {
      try {
        fields = JSON.parse(raw) as Record<string, string>
      } catch {
        return json(res, 400, { error: "invalid_request" })
      }
    } else {
      if (!String(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded"))
        return json(res, 400, { error: "invalid_request" })
      fields = Object.fromEntries(new URLSearchParams(raw))
    }
    const grant = quirks.grantTypeInQuery ? url.searchParams.get("grant_type") : fields.grant_type
    if (grant !== "client_credentials") return json(res, 400, { error: "unsupported_grant_type" })
    let id: string | undefined
    let secret: string | undefined
    if (quirks.tokenAuth === "basic") {
      const header = String(req.headers.authorization ?? "")
      if (!header.startsWith("Basic ")) return json(res, 401, { error: "invalid_client" })
      const [a, b] = Buffer.from(header.slice(6), "base64").toString("utf8").split(":")
      id = a
      secret = b
    } else {
      id = fields.client_id
      secret = fields.client_secret
    }
    // Sicoob identifies the client by client_id and its certificate; the others want the secret.
    const secretOk =
      options.profile === "sicoob" ? secret === undefined || secret === clientSecret : secret === clientSecret
    if (id !== clientId || !secretOk) return json(res, 401, { error: "invalid_client" })
    const token = randomBytes(24).toString("base64url")
    const ttl = options.tokenTtlSeconds ?? 3600
    tokens.set(token, Date.now() + ttl * 1000)
    counters.tokensIssued++
    return json(res, 200, { access_token: token, token_type: "Bearer", expires_in: ttl, scope: "cob.write cob.read" })
  }

  const checkQuirks = (req: IncomingMessage, res: ServerResponse, url: URL): boolean => {
    if (quirks.appKeyQuery !== null && url.searchParams.get(quirks.appKeyQuery) !== appKey) {
      problem(res, 403, "AcessoNegado", "Acesso negado", `${quirks.appKeyQuery} ausente ou inválida`)
      return false
    }
    if (quirks.appKeyHeader !== null && req.headers[quirks.appKeyHeader] !== appKey) {
      problem(res, 403, "AcessoNegado", "Acesso negado", `${quirks.appKeyHeader} ausente ou inválida`)
      return false
    }
    if (quirks.correlationHeader !== null && typeof req.headers[quirks.correlationHeader] !== "string") {
      problem(res, 400, "RequisicaoInvalida", "Requisição inválida", `${quirks.correlationHeader} ausente`)
      return false
    }
    if (quirks.accountHeader !== null && req.headers[quirks.accountHeader] !== account) {
      problem(res, 403, "AcessoNegado", "Acesso negado", `${quirks.accountHeader} ausente ou inválida`)
      return false
    }
    return true
  }

  const api = async (
    method: string,
    path: string,
    url: URL,
    body: Record<string, unknown> | undefined,
    res: ServerResponse
  ): Promise<{ status: number; body: unknown }> => {
    const parts = path.split("/").filter((p) => p !== "")
    const send = (status: number, b: unknown) => ({ status, body: json(res, status, b) })
    const fail = (status: number, tipo: string, title: string, detail?: string) => ({
      status,
      body: problem(res, status, tipo, title, detail)
    })

    // cob ------------------------------------------------------------------------------------------------
    if (parts[0] === "cob" && parts.length === 2) {
      const txid = parts[1]!
      if (!TXID.test(txid)) return fail(400, "CobOperacaoInvalida", "Cobrança inválida", "txid inválido")
      const existing = cobs.get(txid)
      if (method === "PUT") {
        if (existing !== undefined) return fail(400, "CobOperacaoInvalida", "Cobrança inválida", "txid já utilizado")
        const valor = (body?.valor as { original?: unknown } | undefined)?.original
        if (typeof valor !== "string" || !VALOR.test(valor) || cents(valor) <= 0)
          return fail(400, "CobOperacaoInvalida", "Cobrança inválida", "valor.original inválido")
        if (body?.chave !== pixKey) return fail(400, "CobOperacaoInvalida", "Cobrança inválida", "chave inválida")
        const devedor = body.devedor as Record<string, unknown> | undefined
        if (devedor !== undefined && (devedor.cpf === undefined) === (devedor.cnpj === undefined))
          return fail(400, "CobOperacaoInvalida", "Cobrança inválida", "devedor: cpf ou cnpj")
        const expiracao = (body.calendario as { expiracao?: number } | undefined)?.expiracao ?? 86400
        if (!Number.isInteger(expiracao) || expiracao <= 0)
          return fail(400, "CobOperacaoInvalida", "Cobrança inválida", "calendario.expiracao inválido")
        const locId = ++locSeq
        const location = `${url.host}/qr/v2/${randomUUID().replace(/-/g, "")}`
        const cob: Cob = {
          txid,
          revisao: 0,
          criacao: now().toISOString(),
          expiracao,
          status: "ATIVA",
          valor,
          chave: pixKey,
          ...(devedor === undefined ? {} : { devedor }),
          locId,
          location,
          pixCopiaECola: dynamicBrCode(location, "LOJA FAKE PSP", "SAO PAULO")
        }
        cobs.set(txid, cob)
        return send(201, cobJson(cob))
      }
      if (existing === undefined) return fail(404, "NaoEncontrado", "Não encontrado", "cobrança não encontrada")
      if (method === "GET") return send(200, cobJson(existing))
      if (method === "PATCH") {
        if (body?.status !== undefined && body.status !== "REMOVIDA_PELO_USUARIO_RECEBEDOR")
          return fail(400, "CobOperacaoInvalida", "Cobrança inválida", "status inválido")
        if (existing.status !== "ATIVA")
          return fail(400, "CobOperacaoInvalida", "Cobrança inválida", "cobrança não está ATIVA")
        if (body?.status !== undefined) existing.status = "REMOVIDA_PELO_USUARIO_RECEBEDOR"
        existing.revisao++
        return send(200, cobJson(existing))
      }
    }

    // cobv (due-date charges: PUT, GET and PATCH /cobv/{txid}; no GET /cobv list, no lotecobv) ----------------
    if (parts[0] === "cobv" && parts.length === 2) {
      const txid = parts[1]!
      if (!TXID.test(txid)) return fail(400, "CobVOperacaoInvalida", "Cobrança inválida", "txid inválido")
      const existing = cobvs.get(txid)
      if (method === "PUT") {
        const bad = (detail: string) => fail(400, "CobVOperacaoInvalida", "Cobrança inválida", detail)
        if (existing !== undefined || cobs.has(txid)) return bad("txid já utilizado")
        const valor = body?.valor as (Record<string, unknown> & { original?: unknown }) | undefined
        if (typeof valor?.original !== "string" || !VALOR.test(valor.original) || cents(valor.original) <= 0)
          return bad("valor.original inválido")
        if (body?.chave !== pixKey) return bad("chave inválida")
        const devedor = body.devedor as Record<string, unknown> | undefined
        if (devedor === undefined || (devedor.cpf === undefined) === (devedor.cnpj === undefined))
          return bad("devedor: cpf ou cnpj")
        if (typeof devedor.nome !== "string") return bad("devedor.nome obrigatório")
        const calendario = body.calendario as { dataDeVencimento?: unknown; validadeAposVencimento?: unknown }
        const due = calendario?.dataDeVencimento
        if (typeof due !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(due)) return bad("calendario.dataDeVencimento")
        if (due < now().toISOString().slice(0, 10)) return bad("dataDeVencimento anterior à criação")
        const validade = calendario.validadeAposVencimento ?? 30
        if (!Number.isInteger(validade) || (validade as number) < 0) return bad("validadeAposVencimento")
        const locId = ++locSeq
        const location = `${url.host}/qr/v2/cobv/${randomUUID().replace(/-/g, "")}`
        const cobv: Cobv = {
          txid,
          revisao: 0,
          criacao: now().toISOString(),
          dataDeVencimento: due,
          validadeAposVencimento: validade as number,
          status: "ATIVA",
          valor: valor as Cobv["valor"],
          chave: pixKey,
          devedor,
          locId,
          location,
          pixCopiaECola: dynamicBrCode(location, "LOJA FAKE PSP", "SAO PAULO")
        }
        cobvs.set(txid, cobv)
        return send(201, cobvJson(cobv))
      }
      if (existing === undefined) return fail(404, "NaoEncontrado", "Não encontrado", "cobrança não encontrada")
      if (method === "GET") return send(200, cobvJson(existing))
      if (method === "PATCH") {
        // CobVRevisada: the receiver withdraws it (status alone) or revises it; only an ATIVA one, either way.
        const bad = (detail: string) => fail(400, "CobVOperacaoInvalida", "Operação inválida.", detail)
        if (existing.status !== "ATIVA")
          return bad("Cobrança não encontra-se mais com o status ATIVA, somente cobranças ativas podem ser revisadas.")
        const fields = Object.keys(body ?? {})
        if (body?.status !== undefined) {
          if (body.status !== "REMOVIDA_PELO_USUARIO_RECEBEDOR") return bad("status inválido")
          if (fields.length > 1) return bad("remoção da cobrança com outras alterações")
          existing.status = "REMOVIDA_PELO_USUARIO_RECEBEDOR"
        } else {
          const valor = body?.valor as Record<string, unknown> | undefined
          if (valor?.original !== undefined && (typeof valor.original !== "string" || !VALOR.test(valor.original)))
            return bad("valor.original inválido")
          if (valor !== undefined) existing.valor = { ...existing.valor, ...valor } as Cobv["valor"]
          const calendario = body?.calendario as Partial<Pick<Cobv, "dataDeVencimento" | "validadeAposVencimento">>
          if (calendario?.dataDeVencimento !== undefined) existing.dataDeVencimento = calendario.dataDeVencimento
          if (calendario?.validadeAposVencimento !== undefined)
            existing.validadeAposVencimento = calendario.validadeAposVencimento
          if (body?.devedor !== undefined) existing.devedor = body.devedor
        }
        existing.revisao++
        return send(200, cobvJson(existing))
      }
    }

    // pix ------------------------------------------------------------------------------------------------
    if (parts[0] === "pix" && parts.length === 1 && method === "GET") {
      const inicio = url.searchParams.get("inicio")
      const fim = url.searchParams.get("fim")
      if (inicio === null || fim === null || Number.isNaN(Date.parse(inicio)) || Number.isNaN(Date.parse(fim)))
        return fail(400, "RequisicaoInvalida", "Requisição inválida", "inicio e fim obrigatórios")
      const perPage = 2
      const page = Number(url.searchParams.get("paginacao.paginaAtual") ?? "0")
      const all = [...received.values()]
        .filter((r) => r.unlisted !== true)
        .filter((r) => r.horario >= new Date(inicio).toISOString() && r.horario <= new Date(fim).toISOString())
        .sort((a, b) => a.horario.localeCompare(b.horario))
      const pages = Math.max(1, Math.ceil(all.length / perPage))
      return send(200, {
        parametros: {
          inicio,
          fim,
          paginacao: {
            paginaAtual: page,
            itensPorPagina: perPage,
            quantidadeDePaginas: pages,
            quantidadeTotalDeItens: all.length
          }
        },
        pix: all.slice(page * perPage, page * perPage + perPage).map(pixJson)
      })
    }
    if (parts[0] === "pix" && parts.length >= 2) {
      const e2e = parts[1]!
      if (!E2E.test(e2e)) return fail(400, "RequisicaoInvalida", "Requisição inválida", "e2eid inválido")
      const paid = received.get(e2e)
      if (paid === undefined) return fail(404, "NaoEncontrado", "Não encontrado", "Pix não encontrado")
      if (parts.length === 2 && method === "GET") return send(200, pixJson(paid))
      if (parts.length === 4 && parts[2] === "devolucao") {
        const id = parts[3]!
        if (!DEV_ID.test(id)) return fail(400, "PixDevolucaoOperacaoInvalida", "Devolução inválida", "id inválido")
        const existing = paid.devolucoes.find((d) => d.id === id)
        if (method === "GET") {
          return existing === undefined
            ? fail(404, "NaoEncontrado", "Não encontrado", "devolução não encontrada")
            : send(200, existing)
        }
        if (method === "PUT") {
          if (existing !== undefined)
            return fail(400, "PixDevolucaoOperacaoInvalida", "Devolução inválida", "id já utilizado")
          const valor = body?.valor
          if (typeof valor !== "string" || !VALOR.test(valor) || cents(valor) <= 0)
            return fail(400, "PixDevolucaoOperacaoInvalida", "Devolução inválida", "valor inválido")
          const taken = paid.devolucoes
            .filter((d) => d.status !== "NAO_REALIZADO")
            .reduce((sum, d) => sum + cents(d.valor), 0)
          if (taken + cents(valor) > cents(paid.valor))
            return fail(400, "PixDevolucaoOperacaoInvalida", "Devolução inválida", "soma das devoluções excede o Pix")
          const devolucao: Devolucao = {
            id,
            rtrId: `D${ISPB}${randomBytes(12).toString("hex")}`.slice(0, 32),
            valor,
            horario: { solicitacao: now().toISOString() },
            status: "EM_PROCESSAMENTO"
          }
          paid.devolucoes.push(devolucao)
          return send(201, devolucao)
        }
      }
    }

    // webhook --------------------------------------------------------------------------------------------
    if (parts[0] === "webhook" && parts.length === 2) {
      const chave = decodeURIComponent(parts[1]!)
      if (chave !== pixKey) return fail(404, "NaoEncontrado", "Não encontrado", "chave não encontrada")
      if (method === "PUT") {
        const webhookUrl = body?.webhookUrl
        if (typeof webhookUrl !== "string" || !webhookUrl.startsWith("https://"))
          return fail(400, "WebhookOperacaoInvalida", "Webhook inválido", "webhookUrl inválida")
        webhooks.set(chave, webhookUrl)
        res.writeHead(204)
        res.end()
        return { status: 204, body: undefined }
      }
      if (method === "GET") {
        const webhookUrl = webhooks.get(chave)
        return webhookUrl === undefined
          ? fail(404, "NaoEncontrado", "Não encontrado", "webhook não encontrado")
          : send(200, { webhookUrl, chave, criacao: now().toISOString() })
      }
    }
    return fail(404, "NaoEncontrado", "Não encontrado")
  }

  const server = createServer(
    {
      cert: certs.server.certPem,
      key: certs.server.keyPem,
      ca: certs.ca.certPem,
      // mTLS: no client certificate from the PSP's CA, no TLS session at all.
      requestCert: true,
      rejectUnauthorized: true
    },
    (req, res) => {
      counters.requests++
      const url = new URL(req.url ?? "/", `https://${req.headers.host ?? "localhost"}`)
      void (async () => {
        if (req.method === "POST" && url.pathname === quirks.tokenPath) return handleToken(req, res, url)
        if (!url.pathname.startsWith(quirks.pathPrefix + "/")) {
          return problem(res, 404, "NaoEncontrado", "Não encontrado", "caminho fora da API")
        }
        const path = url.pathname.slice(quirks.pathPrefix.length)
        const method = req.method ?? "GET"
        const raw = await readBody(req)
        const auth = String(req.headers.authorization ?? "")
        const expiry = auth.startsWith("Bearer ") ? tokens.get(auth.slice(7)) : undefined
        const fault = takeFault(method, path)
        if (fault === "401" || expiry === undefined || expiry < Date.now()) {
          if (fault === "401") tokens.delete(auth.slice(7))
          res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" })
          return res.end(JSON.stringify({ error: "invalid_token" }))
        }
        if (!checkQuirks(req, res, url)) return
        if (fault === "timeout") return // never answers; the client gives up
        if (fault === "5xx") return problem(res, 503, "ServicoIndisponivel", "Serviço indisponível")
        let body: Record<string, unknown> | undefined
        if (raw !== "") {
          try {
            body = JSON.parse(raw) as Record<string, unknown>
          } catch {
            return problem(res, 400, "RequisicaoInvalida", "Requisição inválida", "JSON inválido")
          }
        }
        const query = Object.fromEntries(url.searchParams)
        if (fault === "commit-then-drop") {
          // Do the work, then cut the connection before the answer leaves.
          const sink = Object.assign(Object.create(res) as ServerResponse, {
            writeHead: () => sink,
            end: () => {
              req.socket.destroy()
              return sink
            }
          })
          await api(method, path, url, body, sink)
          exchanges.push({ method, path, query, requestBody: body, status: 0, responseBody: undefined })
          return
        }
        const answer = await api(method, path, url, body, res)
        exchanges.push({ method, path, query, requestBody: body, status: answer.status, responseBody: answer.body })
      })().catch(() => {
        if (!res.headersSent) problem(res, 500, "ErroInternoDoServidor", "Erro interno")
      })
    }
  )
  server.on("connection", (s: Socket) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })
  server.on("secureConnection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  const host = `https://127.0.0.1:${port}`

  // --- the levers a test (or a developer) pulls ---------------------------------------------------------
  const control = {
    profile: options.profile,
    /** What goes in PIX_API_URL. */
    url: host,
    clientId,
    clientSecret,
    appKey,
    account,
    pixKey,
    exchanges,
    counters,
    cobs,
    /** The due-date charges (`cobv`) by txid, as the PSP holds them: their `status` shows a withdrawal. */
    cobvs,
    webhooks,
    /** The next request whose `METHOD /path` starts with `match` ("*" for any) gets `fault`. */
    inject: (match: string, fault: Fault) => void faults.push({ match, fault }),
    /** How many injected faults no request has taken yet. */
    pendingFaults: () => faults.length,
    setNotifications: (mode: NotificationMode) => void (notificationMode = mode),
    /**
     * Notices with or without the PSP's client certificate (Efí's `x-skip-mtls-checking`), sent from a
     * local address (`127.0.0.2`: another caller on loopback, for an IP allow-list).
     */
    setNotifier: (how: { clientCert: boolean; from?: string }) => void (notifier = how),
    /**
     * The payer pays the charge (at `amount` centavos, the charge's own by default); notifies unless told.
     * `again`: another payer pays a charge already paid (CONCLUIDA), as two payers who both read its QR code
     * while it was ATIVA do; the PSP lists every payment under the charge in the order paid (the spec's
     * `CobCompleta.pix` is an array). A withdrawn charge refuses it all the same.
     */
    pay: async (
      txid: string,
      opts: {
        amount?: number
        notify?: boolean
        endToEndId?: string
        listed?: boolean
        bareInCob?: boolean
        /** The PSP leaves the payment out of the charge's `pix` list (an optional field of `CobCompleta`). */
        inCob?: boolean
        again?: boolean
      } = {}
    ) => {
      // A due-date charge (cobv) is paid the same way; the fake does not compute its terms: pass `amount`.
      const cob = cobs.get(txid) ?? cobvs.get(txid)
      const payable = cob?.status === "ATIVA" || (opts.again === true && cob?.status === "CONCLUIDA")
      if (cob !== undefined && !payable) throw new Error(`charge ${txid} is ${cob.status}`)
      if (cob !== undefined) cob.status = "CONCLUIDA"
      const original = cob === undefined ? undefined : typeof cob.valor === "string" ? cob.valor : cob.valor.original
      const paid: Received = {
        endToEndId: opts.endToEndId ?? newE2e(),
        txid,
        valor: opts.amount === undefined ? (original ?? "1.00") : valorOf(opts.amount),
        horario: now().toISOString(),
        chave: pixKey,
        devolucoes: [],
        ...(opts.listed === false ? { unlisted: true } : {}),
        ...(opts.bareInCob === true ? { bareInCob: true } : {}),
        ...(opts.inCob === false ? { notInCob: true } : {})
      }
      received.set(paid.endToEndId, paid)
      if (opts.notify !== false) await notify([paid])
      return paid.endToEndId
    },
    /** Sends the held notifications: batched in one call, in the order given (reversed to reorder). */
    flush: async (opts: { reverse?: boolean; duplicate?: boolean } = {}) => {
      const items = held.splice(0, held.length)
      if (opts.reverse) items.reverse()
      const batch = opts.duplicate ? [...items, ...items] : items
      const before = notificationMode
      notificationMode = "normal"
      const results = await notify(batch)
      notificationMode = before
      return results
    },
    /** Sends a payment's notification again (a PSP's retry). */
    renotify: async (endToEndId: string) => {
      const paid = received.get(endToEndId)
      if (paid === undefined) throw new Error(`no pix ${endToEndId}`)
      return notify([paid])
    },
    /** The refund reaches its final status at the SPI, and the PSP notifies it. */
    settleRefund: async (
      endToEndId: string,
      id: string,
      status: "DEVOLVIDO" | "NAO_REALIZADO",
      opts: { notify?: boolean } = {}
    ) => {
      const paid = received.get(endToEndId)
      const devolucao = paid?.devolucoes.find((d) => d.id === id)
      if (paid === undefined || devolucao === undefined) throw new Error(`no devolução ${id}`)
      devolucao.status = status
      if (status === "DEVOLVIDO") devolucao.horario.liquidacao = now().toISOString()
      else devolucao.motivo = "Conta do pagador encerrada"
      if (opts.notify !== false) await notify([paid])
    },
    /** Charges the PSP itself withdraws (REMOVIDA_PELO_PSP). */
    removeByPsp: (txid: string) => {
      const cob = cobs.get(txid) ?? cobvs.get(txid)
      if (cob !== undefined) cob.status = "REMOVIDA_PELO_PSP"
    },
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
  return control
}

export type FakePsp = Awaited<ReturnType<typeof startFakePsp>>

/**
 * The levers over plain HTTP on loopback, for a fake started alone (`npm run fake -- pix`): `POST /pay/{txid}`
 * (`?amount=` centavos, `?again=true` for a second payer of a paid charge),
 * `POST /fault/{fault}?match=`, `POST /notifications/{mode}`, `POST /flush`,
 * `POST /refund/{e2eid}/{id}/{DEVOLVIDO|NAO_REALIZADO}`, `GET /exchanges`.
 */
export const startControl = async (psp: FakePsp, port = 0) => {
  const server = createHttpServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    const parts = url.pathname.split("/").filter((p) => p !== "")
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" })
      res.end(JSON.stringify(body))
    }
    void (async () => {
      if (req.method === "POST" && parts[0] === "pay" && parts[1] !== undefined) {
        const amount = url.searchParams.get("amount")
        return reply(200, {
          endToEndId: await psp.pay(parts[1], {
            ...(amount === null ? {} : { amount: Number(amount) }),
            ...(url.searchParams.get("again") === "true" ? { again: true } : {})
          })
        })
      }
      if (req.method === "POST" && parts[0] === "fault" && parts[1] !== undefined) {
        psp.inject(url.searchParams.get("match") ?? "*", parts[1] as Fault)
        return reply(200, { ok: true })
      }
      if (req.method === "POST" && parts[0] === "notifications" && parts[1] !== undefined) {
        psp.setNotifications(parts[1] as NotificationMode)
        return reply(200, { ok: true })
      }
      if (req.method === "POST" && parts[0] === "flush") return reply(200, { results: await psp.flush() })
      if (req.method === "POST" && parts[0] === "refund" && parts.length === 4) {
        await psp.settleRefund(parts[1]!, parts[2]!, parts[3] as "DEVOLVIDO" | "NAO_REALIZADO")
        return reply(200, { ok: true })
      }
      if (req.method === "GET" && parts[0] === "exchanges") return reply(200, psp.exchanges)
      return reply(404, { error: "unknown control" })
    })().catch((e: unknown) => reply(400, { error: String(e) }))
  })
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/**
 * The variables that point the gateway's bcb-pix adapter at this fake (docs/configuration.md, PIX_*), for a
 * spawned gateway's environment or a ConfigProvider in a test. `overrides` replaces or (with undefined)
 * removes any of them.
 */
export const gatewayEnv = (
  psp: FakePsp,
  certificates: PixTestCertificates,
  overrides: Readonly<Record<string, string | undefined>> = {}
): Record<string, string> => {
  const env: Record<string, string | undefined> = {
    LIVE_PIX_PROVIDER: "bcb-pix",
    PIX_PSP: psp.profile,
    PIX_ENVIRONMENT: "homologation",
    PIX_API_URL: psp.url,
    PIX_CLIENT_ID: psp.clientId,
    PIX_CLIENT_SECRET: psp.clientSecret,
    PIX_KEY: psp.pixKey,
    PIX_APP_KEY: psp.appKey,
    PIX_ACCOUNT: psp.account,
    PIX_CERT_FILE: certificates.files.merchantCert,
    PIX_KEY_FILE: certificates.files.merchantKey,
    PIX_CA_FILE: certificates.files.caCert,
    PIX_TIMEOUT_MS: "1500",
    ...overrides
  }
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined))
}
