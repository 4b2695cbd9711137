import { useState } from "preact/hooks"
import { Link } from "wouter-preact"
import { post, get, type TimelineEntry, type Transaction } from "../api.ts"
import { brl, dateTime, parseMoney } from "../format.ts"
import { statusLabel, useTexts } from "../i18n.ts"
import { invalidate, useQuery } from "../query.ts"
import { Confirm, Field, Page, Problem, useAction } from "../ui.tsx"
import { DeliveryItem } from "./DeliveryItem.tsx"

interface Detail {
  transaction: Transaction
  timeline: TimelineEntry[]
}

const describe = (e: TimelineEntry) => {
  const d = e.detail
  if (e.kind === "refund") return `${brl(Number(d["amount"]))}${d["reason"] ? ` · ${String(d["reason"])}` : ""}`
  if (e.kind === "antifraud") return `score ${String(d["score"])}${d["reason"] ? ` · ${String(d["reason"])}` : ""}`
  if (e.kind === "delivery")
    return `${String(d["url"])} · HTTP ${d["httpStatus"] ?? "—"} · ${String(d["attempts"])}×${
      d["lastError"] ? ` · ${String(d["lastError"])}` : ""
    }`
  if (e.kind === "paid" || e.kind === "created") return brl(Number(d["amountTotal"]))
  if (e.kind === "authorized") return String(d["authorizationCode"])
  return ""
}

export const TransactionDetail = (props: { id: string }) => {
  const t = useTexts()
  const key = `transaction:${props.id}`
  const found = useQuery(key, () => get<Detail>(`/api/dashboard/transactions/${props.id}`), 2_000)
  const [amount, setAmount] = useState("")
  const [asking, setAsking] = useState<number | null>(null)
  const refund = useAction(async (centavos: number) => {
    await post(`/api/dashboard/transactions/${props.id}/refund`, { amount: centavos })
    setAsking(null)
    setAmount("")
    invalidate("")
  })
  const review = useAction(async (decision: "approve" | "reject") => {
    await post(`/api/dashboard/transactions/${props.id}/antifraud`, { decision })
    invalidate("")
  })
  const [amountError, setAmountError] = useState<string | null>(null)
  const tx = found.data?.transaction
  return (
    <Page title={`${t.details}`} actions={<Link href="/transactions">{t.back}</Link>}>
      <Problem error={found.error} />
      {tx ? (
        <>
          <dl class="facts">
            <div>
              <dt>ID</dt>
              <dd>
                <code>{tx.id}</code>
              </dd>
            </div>
            <div>
              <dt>{t.status}</dt>
              <dd>
                <span class={`badge s-${tx.status}`} data-status={tx.status}>
                  {statusLabel(tx.status)}
                </span>
              </dd>
            </div>
            <div>
              <dt>{t.amount}</dt>
              <dd>{brl(tx.amountTotal)}</dd>
            </div>
            <div>
              <dt>{t.refunded}</dt>
              <dd data-refunded>{brl(tx.refundedAmount)}</dd>
            </div>
            <div>
              <dt>{t.fee}</dt>
              <dd>{brl(tx.fee)}</dd>
            </div>
            <div>
              <dt>{t.method}</dt>
              <dd>
                {tx.method}
                {tx.card ? ` · ${tx.card.brand} •${tx.card.last4}` : ""}
                {tx.installments ? ` · ${tx.installments}×` : ""}
              </dd>
            </div>
            <div>
              <dt>{t.buyer}</dt>
              <dd>{tx.buyer ? `${tx.buyer.name} · ${tx.buyer.document}` : "—"}</dd>
            </div>
            <div>
              <dt>{t.created}</dt>
              <dd>{dateTime(tx.createdAt)}</dd>
            </div>
          </dl>
          {tx.antifraud ? (
            <section aria-labelledby="af-title" class="panel">
              <h2 id="af-title">{t.antifraud}</h2>
              <p>
                {tx.antifraud.decision} · {t.score} {tx.antifraud.score}
                {tx.antifraud.reason ? ` · ${t.reason}: ${tx.antifraud.reason}` : ""}
              </p>
              {tx.antifraud.status === "in_review" ? (
                <div class="actions">
                  <button type="button" onClick={() => void review.run("approve")} disabled={review.busy}>
                    {t.approve}
                  </button>
                  <button type="button" class="danger" onClick={() => void review.run("reject")} disabled={review.busy}>
                    {t.reject}
                  </button>
                </div>
              ) : null}
              <Problem error={review.error} />
            </section>
          ) : null}
          {tx.refundable > 0 ? (
            <section aria-labelledby="refund-title" class="panel">
              <h2 id="refund-title">{t.refund}</h2>
              <p class="muted">
                {t.refundable}: {brl(tx.refundable)}
              </p>
              <form
                class="inline"
                onSubmit={(e) => {
                  e.preventDefault()
                  const centavos = parseMoney(amount)
                  if (centavos === null || centavos < 1 || centavos > tx.refundable) {
                    setAmountError(`${t.refundAmount}: 0,01 – ${brl(tx.refundable)}`)
                    return
                  }
                  setAmountError(null)
                  setAsking(centavos)
                }}
              >
                <Field id="refund-amount" label={t.refundAmount}>
                  <input
                    id="refund-amount"
                    inputMode="decimal"
                    value={amount}
                    aria-invalid={amountError !== null}
                    aria-describedby={amountError ? "refund-amount-error" : undefined}
                    onInput={(e) => setAmount(e.currentTarget.value)}
                  />
                </Field>
                <button type="submit">{t.refund}</button>
                <button type="button" class="secondary" onClick={() => setAsking(tx.refundable)}>
                  {t.refundAll}
                </button>
              </form>
              {amountError ? (
                <p id="refund-amount-error" class="problem" role="alert">
                  {amountError}
                </p>
              ) : null}
              <Problem error={refund.error} />
              <Confirm
                open={asking !== null}
                title={t.refundConfirm(brl(asking ?? 0))}
                busy={refund.busy}
                onCancel={() => setAsking(null)}
                onConfirm={() => {
                  if (asking !== null) void refund.run(asking)
                }}
              />
            </section>
          ) : null}
          <h2>{t.timeline}</h2>
          <ol class="timeline">
            {found.data!.timeline.map((e, i) => (
              <li key={i} class={`k-${e.kind}`}>
                <time dateTime={e.at}>{dateTime(e.at)}</time>
                {/* A delivery's event and status are its expandable summary's (DeliveryItem), said once. */}
                {e.kind === "delivery" ? null : <strong>{e.title}</strong>}
                <span class="muted">{describe(e)}</span>
                {e.kind === "delivery" ? (
                  // Its request and response on expand, and "Resend" with a confirmation (docs/dashboard.md).
                  <DeliveryItem
                    id={String(e.detail["id"])}
                    event={String(e.detail["event"])}
                    status={String(e.detail["status"])}
                  />
                ) : null}
                {e.kind === "event" || e.kind === "dispute" ? (
                  <details>
                    <summary>payload</summary>
                    <pre>{JSON.stringify(e.detail["payload"], null, 2)}</pre>
                  </details>
                ) : null}
              </li>
            ))}
          </ol>
        </>
      ) : (
        <p class="muted">{t.loading}</p>
      )}
    </Page>
  )
}
