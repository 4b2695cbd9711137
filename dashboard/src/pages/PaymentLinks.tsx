import { useEffect, useRef, useState } from "preact/hooks"
import { Link } from "wouter-preact"
import { get, patch, post, type Transaction } from "../api.ts"
import { brl, dateTime, parseMoney } from "../format.ts"
import { statusLabel, useTexts } from "../i18n.ts"
import { invalidate, useQuery } from "../query.ts"
import { Confirm, Field, Page, Problem, Table, useAction } from "../ui.tsx"
import {
  DescriptionField,
  type ItemDraft,
  itemDrafts,
  ItemsEditor,
  type LinkItem,
  MetadataField,
  metadataText,
  MethodChoice,
  parseMetadata,
  wireCount,
  wireItems
} from "./linkFields.tsx"

/** A payment link as /api/dashboard/payment-links answers it: v1's words (docs/payment-links.md). */
interface PaymentLink {
  id: string
  url: string
  name: string
  description: string | null
  amount: number | null
  min_amount: number | null
  max_amount: number | null
  items: LinkItem[]
  payment_methods: string[]
  max_installments: number
  expires_at: string | null
  max_uses: number | null
  uses: number
  status: string
  active: boolean
  metadata: Record<string, unknown>
  created_at: string
}

const BASE = "/api/dashboard/payment-links"

/** Optional money typed in reais → centavos; undefined when empty, NaN when it is not an amount. */
const money = (text: string) => (text.trim() === "" ? undefined : (parseMoney(text) ?? Number.NaN))

const CreateLink = () => {
  const t = useTexts()
  const [name, setName] = useState("")
  const [description, setDescription] = useState("")
  const [amount, setAmount] = useState("")
  const [min, setMin] = useState("")
  const [max, setMax] = useState("")
  const [methods, setMethods] = useState<string[]>(["pix", "credit_card"])
  const [installments, setInstallments] = useState("1")
  const [uses, setUses] = useState("")
  const [expires, setExpires] = useState("")
  const [items, setItems] = useState<ItemDraft[]>([])
  const [metadata, setMetadata] = useState("")
  const create = useAction(async () => {
    const fixed = money(amount)
    const meta = parseMetadata(metadata, t.metadataInvalid)
    const listed = wireItems(items)
    const body = {
      name,
      ...(description.trim() === "" ? {} : { description }),
      payment_methods: methods,
      ...(fixed === undefined ? {} : { amount: fixed }),
      ...(fixed === undefined && money(min) !== undefined ? { min_amount: money(min) } : {}),
      ...(fixed === undefined && money(max) !== undefined ? { max_amount: money(max) } : {}),
      ...(methods.includes("credit_card") ? { max_installments: Number(installments) } : {}),
      ...(uses.trim() === "" ? {} : { max_uses: wireCount(uses) }),
      // datetime-local is the browser's local time: sent as an instant with its offset.
      ...(expires === "" ? {} : { expires_at: new Date(expires).toISOString() }),
      ...(listed.length === 0 ? {} : { items: listed }),
      ...(meta === undefined ? {} : { metadata: meta })
    }
    const made = await post<PaymentLink>(BASE, body)
    setName("")
    setDescription("")
    setAmount("")
    setItems([])
    setMetadata("")
    invalidate("payment-links")
    return made
  })
  return (
    <section class="panel" aria-labelledby="pl-create">
      <h2 id="pl-create">{t.createLink}</h2>
      <Problem error={create.error} />
      {create.result ? (
        <p class="notice" role="status">
          {t.ok} <a href={create.result.url}>{create.result.url}</a>
        </p>
      ) : null}
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void create.run()
        }}
      >
        <Field id="pl-name" label={t.linkName}>
          <input id="pl-name" required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <DescriptionField prefix="pl" text={description} onText={setDescription} />
        <Field id="pl-amount" label={t.linkAmount}>
          <input
            id="pl-amount"
            inputMode="decimal"
            aria-describedby="pl-amount-hint"
            value={amount}
            onInput={(e) => setAmount(e.currentTarget.value)}
          />
        </Field>
        <p class="muted" id="pl-amount-hint">
          {t.linkAmountHint}
        </p>
        {amount.trim() === "" ? (
          <div class="inline">
            <Field id="pl-min" label={t.minAmount}>
              <input id="pl-min" inputMode="decimal" value={min} onInput={(e) => setMin(e.currentTarget.value)} />
            </Field>
            <Field id="pl-max" label={t.maxAmount}>
              <input id="pl-max" inputMode="decimal" value={max} onInput={(e) => setMax(e.currentTarget.value)} />
            </Field>
          </div>
        ) : null}
        <MethodChoice
          prefix="pl"
          methods={methods}
          onMethods={setMethods}
          installments={installments}
          onInstallments={setInstallments}
        />
        <div class="inline">
          <Field id="pl-uses" label={t.maxUses}>
            <input id="pl-uses" inputMode="numeric" value={uses} onInput={(e) => setUses(e.currentTarget.value)} />
          </Field>
          <Field id="pl-expires" label={t.expiresAt}>
            <input
              id="pl-expires"
              type="datetime-local"
              value={expires}
              onInput={(e) => setExpires(e.currentTarget.value)}
            />
          </Field>
        </div>
        <ItemsEditor prefix="pl" items={items} onItems={setItems} />
        <MetadataField prefix="pl" text={metadata} onText={setMetadata} />
        <button type="submit" disabled={create.busy}>
          {t.createLink}
        </button>
      </form>
    </section>
  )
}

/** An instant as <input type="datetime-local"> shows it: the browser's local time, to the minute. */
const localInput = (iso: string | null) => {
  if (iso === null) return ""
  const d = new Date(iso)
  const p = (n: number) => String(n).padStart(2, "0")
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`
}

/** Methods in one order, to tell a changed choice from the same boxes ticked in another order. */
const sameMethods = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  [...a].sort().join(",") === [...b].sort().join(",")

/**
 * What a link already shared may still change (docs/payment-links.md "Editing a link"): not its amount.
 * Only the fields changed are sent, so renaming an expired link does not resend its past deadline; with
 * cards taken away the installments are not sent (the link goes back to one, as the API does).
 */
const EditLink = (props: { link: PaymentLink; onDone: () => void }) => {
  const t = useTexts()
  const initial = {
    name: props.link.name,
    description: props.link.description ?? "",
    methods: props.link.payment_methods,
    installments: String(props.link.max_installments),
    uses: props.link.max_uses === null ? "" : String(props.link.max_uses),
    expires: localInput(props.link.expires_at),
    items: itemDrafts(props.link.items),
    metadata: metadataText(props.link.metadata)
  }
  const [name, setName] = useState(initial.name)
  const [description, setDescription] = useState(initial.description)
  const [methods, setMethods] = useState<string[]>(initial.methods)
  const [installments, setInstallments] = useState(initial.installments)
  const [uses, setUses] = useState(initial.uses)
  const [expires, setExpires] = useState(initial.expires)
  const [items, setItems] = useState<ItemDraft[]>(initial.items)
  const [metadata, setMetadata] = useState(initial.metadata)
  // The panel opens below the table: the merchant is taken to it, its first field focused.
  const first = useRef<HTMLInputElement>(null)
  useEffect(() => {
    first.current?.scrollIntoView({ block: "center" })
    first.current?.focus()
  }, [props.link.id])
  const save = useAction(async () => {
    const cards = methods.includes("credit_card")
    const listed = wireItems(items)
    const body = {
      ...(name === initial.name ? {} : { name }),
      ...(description === initial.description ? {} : { description: description.trim() === "" ? null : description }),
      ...(sameMethods(methods, initial.methods) ? {} : { payment_methods: methods }),
      ...(cards && installments !== initial.installments ? { max_installments: Number(installments) } : {}),
      ...(uses === initial.uses ? {} : { max_uses: uses.trim() === "" ? null : wireCount(uses) }),
      ...(expires === initial.expires ? {} : { expires_at: expires === "" ? null : new Date(expires).toISOString() }),
      // Items are sent whole (the API replaces the list); every row removed is an empty list.
      ...(JSON.stringify(listed) === JSON.stringify(wireItems(initial.items)) ? {} : { items: listed }),
      // An emptied box clears the metadata (null), as the API's PATCH does.
      ...(metadata === initial.metadata ? {} : { metadata: parseMetadata(metadata, t.metadataInvalid) ?? null })
    }
    await patch<PaymentLink>(`${BASE}/${props.link.id}`, body)
    invalidate("payment-links")
    props.onDone()
  })
  return (
    <section class="panel" aria-labelledby="pl-edit">
      <h2 id="pl-edit">
        {t.editLink}: {props.link.name}
      </h2>
      <Problem error={save.error} />
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void save.run()
        }}
      >
        <Field id="pl-edit-name" label={t.linkName}>
          <input
            ref={first}
            id="pl-edit-name"
            required
            maxLength={255}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </Field>
        <DescriptionField prefix="pl-edit" text={description} onText={setDescription} />
        <MethodChoice
          prefix="pl-edit"
          methods={methods}
          onMethods={setMethods}
          installments={installments}
          onInstallments={setInstallments}
        />
        <div class="inline">
          <Field id="pl-edit-uses" label={t.maxUses}>
            <input
              id="pl-edit-uses"
              inputMode="numeric"
              aria-describedby="pl-edit-hint"
              value={uses}
              onInput={(e) => setUses(e.currentTarget.value)}
            />
          </Field>
          <Field id="pl-edit-expires" label={t.expiresAt}>
            <input
              id="pl-edit-expires"
              type="datetime-local"
              aria-describedby="pl-edit-hint"
              value={expires}
              onInput={(e) => setExpires(e.currentTarget.value)}
            />
          </Field>
        </div>
        <p class="muted" id="pl-edit-hint">
          {t.editLinkHint}
        </p>
        <ItemsEditor prefix="pl-edit" items={items} onItems={setItems} />
        <MetadataField prefix="pl-edit" text={metadata} onText={setMetadata} />
        <div class="inline">
          <button type="submit" disabled={save.busy}>
            {t.save}
          </button>
          <button type="button" class="secondary" onClick={props.onDone}>
            {t.cancel}
          </button>
        </div>
      </form>
    </section>
  )
}

const LinkTransactions = (props: { link: PaymentLink }) => {
  const t = useTexts()
  const list = useQuery(
    `payment-links/${props.link.id}/transactions`,
    () => get<{ data: Transaction[]; total: number }>(`${BASE}/${props.link.id}/transactions?per_page=100`),
    2_000
  )
  return (
    <section class="panel" aria-labelledby="pl-tx">
      <h2 id="pl-tx">
        {t.linkTransactions}: {props.link.name}
      </h2>
      <Problem error={list.error} />
      {list.data ? (
        <Table
          caption={t.linkTransactions}
          rows={list.data.data}
          rowKey={(x) => x.id}
          columns={[
            { label: t.created, cell: (x) => <Link href={`/transactions/${x.id}`}>{dateTime(x.createdAt)}</Link> },
            { label: t.buyer, cell: (x) => x.buyer?.name ?? "—" },
            { label: t.method, cell: (x) => x.method },
            { label: t.status, cell: (x) => statusLabel(x.status) },
            { label: t.amount, cell: (x) => brl(x.amountTotal), numeric: true }
          ]}
        />
      ) : (
        <p class="muted">{t.loading}</p>
      )}
    </section>
  )
}

export const PaymentLinks = () => {
  const t = useTexts()
  const list = useQuery("payment-links", () => get<{ data: PaymentLink[]; total: number }>(`${BASE}?per_page=100`))
  const [shown, setShown] = useState<PaymentLink | null>(null)
  const [confirming, setConfirming] = useState<PaymentLink | null>(null)
  const [editing, setEditing] = useState<PaymentLink | null>(null)
  const deactivate = useAction(async (id: string) => {
    await post(`${BASE}/${id}/deactivate`)
    setConfirming(null)
    invalidate("payment-links")
  })
  // Undoing a deactivation takes no confirmation: it changes nothing the merchant cannot switch back.
  const activate = useAction(async (id: string) => {
    await post(`${BASE}/${id}/activate`)
    invalidate("payment-links")
  })
  const amountOf = (l: PaymentLink) =>
    l.amount !== null
      ? brl(l.amount)
      : `${t.openAmount}${l.min_amount === null ? "" : ` ≥ ${brl(l.min_amount)}`}${
          l.max_amount === null ? "" : ` ≤ ${brl(l.max_amount)}`
        }`
  return (
    <Page title={t.paymentLinks}>
      <CreateLink />
      <Problem error={list.error ?? deactivate.error ?? activate.error} />
      {list.data ? (
        <Table
          caption={t.paymentLinks}
          rows={list.data.data}
          rowKey={(l) => l.id}
          columns={[
            { label: t.name, cell: (l) => l.name },
            { label: t.amount, cell: amountOf, numeric: true },
            { label: t.methods, cell: (l) => l.payment_methods.map((m) => t.methodWords[m] ?? m).join(", ") },
            { label: t.uses, cell: (l) => (l.max_uses === null ? String(l.uses) : `${l.uses}/${l.max_uses}`) },
            { label: t.status, cell: (l) => t.linkStatus[l.status] ?? l.status },
            { label: t.linkUrl, cell: (l) => <a href={l.url}>{l.url.replace(/^https?:\/\//, "")}</a> },
            {
              label: t.actions,
              cell: (l) => (
                <div class="inline">
                  <button type="button" class="secondary" onClick={() => setShown(l)}>
                    {t.showTransactions} <span class="sr-only">{l.name}</span>
                  </button>
                  <button type="button" class="secondary" onClick={() => setEditing(l)}>
                    {t.edit} <span class="sr-only">{l.name}</span>
                  </button>
                  {l.active ? (
                    <button type="button" class="danger" onClick={() => setConfirming(l)}>
                      {t.deactivate} <span class="sr-only">{l.name}</span>
                    </button>
                  ) : (
                    <button
                      type="button"
                      class="secondary"
                      disabled={activate.busy}
                      onClick={() => void activate.run(l.id)}
                    >
                      {t.activate} <span class="sr-only">{l.name}</span>
                    </button>
                  )}
                </div>
              )
            }
          ]}
        />
      ) : (
        <p class="muted">{t.loading}</p>
      )}
      <Confirm
        open={confirming !== null}
        title={t.deactivateConfirm}
        busy={deactivate.busy}
        onCancel={() => setConfirming(null)}
        onConfirm={() => confirming && void deactivate.run(confirming.id)}
      />
      {editing ? <EditLink key={editing.id} link={editing} onDone={() => setEditing(null)} /> : null}
      {shown ? <LinkTransactions link={shown} /> : null}
    </Page>
  )
}
