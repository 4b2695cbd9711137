import { useState } from "preact/hooks"
import { post, session } from "../api.ts"
import { useTexts } from "../i18n.ts"
import { Field, Problem, useAction } from "../ui.tsx"

/** Sign in (POST /api/auth/login) or create an account (POST /api/auth/signup) then sign in. */
export const Login = (props: { onSignedIn: () => void }) => {
  const t = useTexts()
  const [signup, setSignup] = useState(false)
  const [name, setName] = useState("")
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const action = useAction(async () => {
    if (signup) await post("/api/auth/signup", { name, email, password })
    const { accessToken } = await post<{ accessToken: string }>("/api/auth/login", { email, password })
    session.signIn(accessToken)
    props.onSignedIn()
  })
  return (
    <main id="main" class="login">
      <h1>{signup ? t.signup : t.login}</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void action.run()
        }}
      >
        {signup ? (
          <Field id="name" label={t.name}>
            <input
              id="name"
              autocomplete="organization"
              required
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </Field>
        ) : null}
        <Field id="email" label={t.email}>
          <input
            id="email"
            type="email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </Field>
        <Field id="password" label={t.password}>
          <input
            id="password"
            type="password"
            autocomplete={signup ? "new-password" : "current-password"}
            minLength={signup ? 10 : undefined}
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </Field>
        <Problem error={action.error} />
        <button type="submit" disabled={action.busy}>
          {signup ? t.signup : t.login}
        </button>
      </form>
      <p>
        {signup ? t.haveAccount : t.noAccount}{" "}
        <button type="button" class="link" onClick={() => setSignup(!signup)}>
          {signup ? t.login : t.signup}
        </button>
      </p>
    </main>
  )
}
