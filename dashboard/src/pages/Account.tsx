import { useState } from "preact/hooks"
import { get, type Page as ListPage, post, query, request } from "../api.ts"
import { dateTime } from "../format.ts"
import { useTexts } from "../i18n.ts"
import { invalidate, useQuery } from "../query.ts"
import { Confirm, Field, Page, Problem, Table, useAction } from "../ui.tsx"

interface Customer {
  id: string
  name: string
  email: string
  document: string
  phone: string
  createdAt: string
}

export const Customers = () => {
  const t = useTexts()
  const [draft, setDraft] = useState("")
  const [search, setSearch] = useState("")
  const q = query({ search })
  const list = useQuery(`customers${q}`, () => get<ListPage<Customer>>(`/api/dashboard/customers${q}`), 5_000)
  return (
    <Page title={t.customers}>
      <form
        class="inline"
        role="search"
        onSubmit={(e) => {
          e.preventDefault()
          setSearch(draft.trim())
        }}
      >
        <Field id="c-search" label={t.search}>
          <input id="c-search" type="search" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
        </Field>
        <button type="submit">{t.search}</button>
      </form>
      <Problem error={list.error} />
      {list.data ? (
        <Table
          caption={t.customers}
          rows={list.data.data}
          rowKey={(c) => c.id}
          columns={[
            { label: t.name, cell: (c) => c.name },
            { label: t.document, cell: (c) => c.document },
            { label: t.email, cell: (c) => c.email },
            { label: t.phone, cell: (c) => c.phone },
            { label: t.created, cell: (c) => dateTime(c.createdAt) }
          ]}
        />
      ) : (
        <p class="muted">{t.loading}</p>
      )}
    </Page>
  )
}

interface Subaccount {
  id: string
  name: string
  document: string
  email: string
  status: string
  createdAt: string
}

export const Subaccounts = () => {
  const t = useTexts()
  const list = useQuery("subaccounts", () => get<ListPage<Subaccount>>("/api/dashboard/subaccounts"))
  return (
    <Page title={t.subaccounts}>
      <Problem error={list.error} />
      {list.data ? (
        <Table
          caption={t.subaccounts}
          rows={list.data.data}
          rowKey={(s) => s.id}
          columns={[
            { label: t.name, cell: (s) => s.name },
            { label: t.document, cell: (s) => s.document },
            { label: t.email, cell: (s) => s.email },
            { label: t.status, cell: (s) => s.status },
            { label: t.created, cell: (s) => dateTime(s.createdAt) }
          ]}
        />
      ) : (
        <p class="muted">{t.loading}</p>
      )}
    </Page>
  )
}

interface Key {
  id: string
  label: string
  maskedKey: string
  active: boolean
  scopes: string[] | null
  lastUsedAt: string | null
  createdAt: string
}

const SCOPES = [
  "transactions:read",
  "transactions:write",
  "customers:read",
  "customers:write",
  "orders:read",
  "orders:write",
  "webhooks:read",
  "webhooks:write"
]

export const ApiKeys = () => {
  const t = useTexts()
  const keys = useQuery("keys", () => get<{ primary: Key; restricted: Key[] }>("/api/dashboard/api-keys"))
  const [label, setLabel] = useState("")
  const [scopes, setScopes] = useState<string[]>(["transactions:read"])
  const [shown, setShown] = useState<string | null>(null)
  const [confirming, setConfirming] = useState(false)
  const create = useAction(async () => {
    const key = await post<{ fullKey: string }>("/api/dashboard/api-keys", { label, scopes })
    setShown(key.fullKey)
    setLabel("")
    invalidate("keys")
  })
  const revoke = useAction(async (id: string) => {
    await request("DELETE", `/api/dashboard/api-keys/${id}`)
    invalidate("keys")
  })
  const regenerate = useAction(async () => {
    const key = await post<{ fullKey: string }>("/api/dashboard/api-keys/primary/regenerate")
    setConfirming(false)
    setShown(key.fullKey)
    invalidate("keys")
  })
  return (
    <Page title={t.apiKeys}>
      <Problem error={keys.error ?? create.error ?? revoke.error ?? regenerate.error} />
      {shown ? (
        <div class="panel notice" role="status">
          <p>{t.newKey}</p>
          <code class="secret">{shown}</code>
        </div>
      ) : null}
      {keys.data ? (
        <>
          <section class="panel" aria-labelledby="pk-title">
            <h2 id="pk-title">{t.primaryKey}</h2>
            <p>
              <code>{keys.data.primary.maskedKey}</code> · {t.lastUsed}: {dateTime(keys.data.primary.lastUsedAt)}
            </p>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              {t.regenerate}
            </button>
            <Confirm
              open={confirming}
              title={t.regenerateConfirm}
              busy={regenerate.busy}
              onCancel={() => setConfirming(false)}
              onConfirm={() => void regenerate.run()}
            />
          </section>
          <h2>{t.restrictedKeys}</h2>
          <Table
            caption={t.restrictedKeys}
            rows={keys.data.restricted}
            rowKey={(k) => k.id}
            columns={[
              { label: t.label, cell: (k) => k.label },
              { label: "Key", cell: (k) => <code>{k.maskedKey}</code> },
              { label: t.scopes, cell: (k) => (k.scopes ?? []).join(", ") },
              { label: t.status, cell: (k) => (k.active ? t.active : t.revoked) },
              {
                label: t.revoke,
                cell: (k) =>
                  k.active ? (
                    <button type="button" class="secondary" onClick={() => void revoke.run(k.id)}>
                      {t.revoke} <span class="sr-only">{k.label}</span>
                    </button>
                  ) : (
                    "—"
                  )
              }
            ]}
          />
        </>
      ) : (
        <p class="muted">{t.loading}</p>
      )}
      <section class="panel" aria-labelledby="ck-title">
        <h2 id="ck-title">{t.createKey}</h2>
        <form
          onSubmit={(e) => {
            e.preventDefault()
            void create.run()
          }}
        >
          <Field id="k-label" label={t.label}>
            <input id="k-label" required value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
          </Field>
          <fieldset>
            <legend>{t.scopes}</legend>
            <div class="checks">
              {SCOPES.map((s) => (
                <label key={s}>
                  <input
                    type="checkbox"
                    checked={scopes.includes(s)}
                    onChange={(e) =>
                      setScopes(e.currentTarget.checked ? [...scopes, s] : scopes.filter((x) => x !== s))
                    }
                  />{" "}
                  {s}
                </label>
              ))}
            </div>
          </fieldset>
          <button type="submit" disabled={create.busy}>
            {t.createKey}
          </button>
        </form>
      </section>
    </Page>
  )
}
