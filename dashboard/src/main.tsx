import "uplot/dist/uPlot.min.css"
import "./style.css"
import { render } from "preact"
import { useEffect, useState } from "preact/hooks"
import { Link, Route, Router, Switch, useLocation } from "wouter-preact"
import { type Mode, onModeUnavailable, onSignedOut, session } from "./api.ts"
import { type Lang, lang, setLang, useTexts } from "./i18n.ts"
import { resetQueries } from "./query.ts"
import { ApiKeys, Customers, Subaccounts } from "./pages/Account.tsx"
import { TransactionDetail } from "./pages/Detail.tsx"
import { Home } from "./pages/Home.tsx"
import { Login } from "./pages/Login.tsx"
import { BalancePage, Withdrawals } from "./pages/Money.tsx"
import { Transactions } from "./pages/Transactions.tsx"
import { EventDetail, Events } from "./pages/Events.tsx"
import { RequestLog } from "./pages/RequestLog.tsx"
import { Webhooks } from "./pages/Webhooks.tsx"
import { PaymentLinks } from "./pages/PaymentLinks.tsx"

const NAV = [
  ["/", "home"],
  ["/transactions", "transactions"],
  ["/customers", "customers"],
  ["/balance", "balance"],
  ["/withdrawals", "withdrawals"],
  ["/subaccounts", "subaccounts"],
  ["/api-keys", "apiKeys"],
  ["/webhooks", "webhooks"],
  ["/events", "events"],
  ["/request-log", "requestLog"],
  ["/payment-links", "paymentLinks"]
] as const

/** Test or live (docs/dashboard.md "Mode"): every request carries it; a switch forgets the other mode's answers. */
const ModeSwitch = (props: { mode: Mode; onChange: (m: Mode) => void }) => {
  const t = useTexts()
  const { mode } = props
  const choose = (m: Mode) => {
    session.setMode(m)
    resetQueries()
    props.onChange(m)
  }
  return (
    <div class="mode" role="radiogroup" aria-label={t.mode}>
      {(["test", "live"] as const).map((m) => (
        <button
          type="button"
          key={m}
          role="radio"
          aria-checked={mode === m}
          class={mode === m ? `on m-${m}` : ""}
          onClick={() => choose(m)}
        >
          {t[m]}
        </button>
      ))}
    </div>
  )
}

const LangSwitch = () => {
  const t = useTexts()
  return (
    <label class="lang">
      <span class="sr-only">{t.language}</span>
      <select value={lang()} onChange={(e) => setLang(e.currentTarget.value as Lang)} aria-label={t.language}>
        <option value="pt-BR">Português</option>
        <option value="en">English</option>
      </select>
    </label>
  )
}

const Shell = (props: { onSignOut: () => void }) => {
  const t = useTexts()
  const [location] = useLocation()
  const [menu, setMenu] = useState(false)
  useEffect(() => setMenu(false), [location])
  const [mode, setMode] = useState<Mode>(session.mode())
  const live = mode === "live"
  // The API refused live mode (no live rail configured): say so once rather than on every page.
  const [refused, setRefused] = useState(false)
  useEffect(() => onModeUnavailable(() => setRefused(true)), [])
  return (
    <>
      <a class="skip" href="#main">
        {t.skip}
      </a>
      <header class={live ? "top live" : "top"}>
        <span class="brand">{t.appName}</span>
        <ModeSwitch
          mode={mode}
          onChange={(m) => {
            setMode(m)
            setRefused(false)
          }}
        />
        <LangSwitch />
        <button
          type="button"
          class="secondary menu-toggle"
          aria-expanded={menu}
          aria-controls="nav"
          onClick={() => setMenu(!menu)}
        >
          {t.nav}
        </button>
        <button type="button" class="secondary" onClick={props.onSignOut}>
          {t.signOut}
        </button>
      </header>
      <div class="layout">
        <nav id="nav" aria-label={t.nav} class={menu ? "open" : ""}>
          <ul>
            {NAV.map(([href, key]) => {
              const current = href === "/" ? location === "/" : location.startsWith(href)
              return (
                <li key={href}>
                  <Link href={href} aria-current={current ? "page" : undefined}>
                    {t[key]}
                  </Link>
                </li>
              )
            })}
          </ul>
        </nav>
        <main id="main">
          {live && refused ? (
            <p class="problem" role="alert">
              {t.liveUnavailable}
            </p>
          ) : (
            // Keyed by mode: the pages start again in the new mode, nothing of the other one stays shown.
            <Switch key={mode}>
              <Route path="/">{() => <Home />}</Route>
              <Route path="/transactions">{() => <Transactions />}</Route>
              <Route path="/transactions/:id">{(p: { id: string }) => <TransactionDetail id={p.id} />}</Route>
              <Route path="/customers">{() => <Customers />}</Route>
              <Route path="/balance">{() => <BalancePage />}</Route>
              <Route path="/withdrawals">{() => <Withdrawals />}</Route>
              <Route path="/subaccounts">{() => <Subaccounts />}</Route>
              <Route path="/api-keys">{() => <ApiKeys />}</Route>
              <Route path="/webhooks">{() => <Webhooks />}</Route>
              <Route path="/events">{() => <Events />}</Route>
              <Route path="/events/:id">{(p: { id: string }) => <EventDetail id={p.id} />}</Route>
              <Route path="/request-log">{() => <RequestLog />}</Route>
              <Route path="/payment-links">{() => <PaymentLinks />}</Route>
              <Route>{() => <Home />}</Route>
            </Switch>
          )}
        </main>
      </div>
    </>
  )
}

const App = () => {
  const [signedIn, setSignedIn] = useState(session.token() !== null)
  useTexts()
  // Each sign-in, sign-out and expired token (a 401) starts the cache again: the next merchant in this
  // tab sees neither the previous one's answers nor those still on their way.
  useEffect(
    () =>
      onSignedOut(() => {
        resetQueries()
        setSignedIn(false)
      }),
    []
  )
  return (
    <Router base="/dashboard">
      {signedIn ? (
        <Shell
          onSignOut={() => {
            session.signOut()
            resetQueries()
            setSignedIn(false)
          }}
        />
      ) : (
        <Login
          onSignedIn={() => {
            resetQueries()
            setSignedIn(true)
          }}
        />
      )}
    </Router>
  )
}

document.documentElement.lang = lang()
render(<App />, document.getElementById("app")!)
