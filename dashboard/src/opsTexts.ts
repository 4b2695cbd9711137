import { lang, useTexts } from "./i18n.ts"

/**
 * The texts of the events, deliveries, webhook operations and request log pages (docs/dashboard.md
 * "Pages"), beside the app's own so that pages added by other branches do not meet in one file.
 */
const pt = {
  event: "Evento",
  eventType: "Tipo de evento",
  payload: "Conteúdo (payload)",
  transaction: "Transação",
  deliveries: "Entregas",
  delivery: "Entrega",
  url: "URL",
  attempts: "Tentativas",
  lastAttempt: "Última tentativa",
  nextRetry: "Próxima tentativa",
  requestSent: "Requisição enviada",
  headers: "Cabeçalhos",
  body: "Corpo",
  response: "Resposta",
  httpStatus: "Status HTTP",
  latency: "Latência",
  firstKb: "primeiros 4 KB",
  noResponse: "Nenhuma resposta recebida.",
  notAttempted: "Ainda não enviada.",
  resendConfirm: (event: string) =>
    `Reenviar a entrega de ${event}? O receptor a recebe de novo com o mesmo webhook-id.`,
  resent: "Reenvio na fila: a nova tentativa aparece aqui.",
  rotate: "Trocar o segredo",
  rotateConfirm: "Gerar um novo segredo? O atual continua assinando durante a sobreposição escolhida.",
  overlap: "Sobreposição",
  hours: (n: number) => (n === 1 ? "1 hora" : `${n} horas`),
  days: (n: number) => (n === 1 ? "1 dia" : `${n} dias`),
  newSecret: "Novo segredo: copie agora, ele não é mostrado de novo nesta tela.",
  overlapUntil: (at: string) =>
    `Até ${at}, cada entrega leva duas assinaturas (a nova e a anterior): ` +
    "troque o segredo no seu servidor antes disso.",
  sendTest: "Enviar evento de teste",
  testSent: (id: string) => `Evento de teste enviado (entrega ${id}).`,
  resendFailed: "Reenviar as entregas com falha desde…",
  since: "Desde (horário de Brasília)",
  resendFailedDone: (n: number) => (n === 1 ? "1 entrega reenviada." : `${n} entregas reenviadas.`),
  deliveryStatus: { SUCCESS: "Entregue", FAILED: "Falhou", PENDING: "Pendente" } as Record<string, string>,
  apiKey: "Chave de API",
  allKeys: "Todas as chaves",
  path: "Requisição",
  requestId: "ID da requisição",
  idempotencyKey: "Chave de idempotência",
  redactedBody: "Corpo (dados sensíveis ocultos)",
  noBody: "Sem corpo.",
  ms: (n: number) => `${n} ms`
}

type OpsTexts = typeof pt

const en: OpsTexts = {
  event: "Event",
  eventType: "Event type",
  payload: "Payload",
  transaction: "Transaction",
  deliveries: "Deliveries",
  delivery: "Delivery",
  url: "URL",
  attempts: "Attempts",
  lastAttempt: "Last attempt",
  nextRetry: "Next retry",
  requestSent: "Request sent",
  headers: "Headers",
  body: "Body",
  response: "Response",
  httpStatus: "HTTP status",
  latency: "Latency",
  firstKb: "first 4 KB",
  noResponse: "No response received.",
  notAttempted: "Not sent yet.",
  resendConfirm: (event: string) =>
    `Resend the delivery of ${event}? The receiver gets it again with the same webhook-id.`,
  resent: "Resend queued: the new attempt shows here.",
  rotate: "Rotate secret",
  rotateConfirm: "Issue a new secret? The current one keeps signing during the overlap you chose.",
  overlap: "Overlap",
  hours: (n: number) => (n === 1 ? "1 hour" : `${n} hours`),
  days: (n: number) => (n === 1 ? "1 day" : `${n} days`),
  newSecret: "New secret: copy it now, this page does not show it again.",
  overlapUntil: (at: string) =>
    `Until ${at}, every delivery carries two signatures (new and previous): ` +
    "switch the secret on your server before then.",
  sendTest: "Send test event",
  testSent: (id: string) => `Test event sent (delivery ${id}).`,
  resendFailed: "Resend failed deliveries since…",
  since: "Since (Brasília time)",
  resendFailedDone: (n: number) => (n === 1 ? "1 delivery resent." : `${n} deliveries resent.`),
  deliveryStatus: { SUCCESS: "Delivered", FAILED: "Failed", PENDING: "Pending" },
  apiKey: "API key",
  allKeys: "All keys",
  path: "Request",
  requestId: "Request ID",
  idempotencyKey: "Idempotency key",
  redactedBody: "Body (sensitive data redacted)",
  noBody: "No body.",
  ms: (n: number) => `${n} ms`
}

/** The app's texts and these, in the chosen language (re-renders on a switch like useTexts). */
export const useOpsTexts = () => {
  const t = useTexts()
  return { t, o: lang() === "en" ? en : pt }
}
