import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["node_modules", ".data", "coverage", "dist", "clients/typescript/dist"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
      "no-console": ["error", { allow: ["error"] }],
      "max-len": ["error", { code: 120, ignoreUrls: true }],
      // Effect idiom: Data.TaggedError("X")<{}> for errors without fields.
      "@typescript-eslint/no-empty-object-type": "off"
    }
  },
  { files: ["src/cli.ts", "bench/**", "test/**", "scripts/**"], rules: { "no-console": "off" } },
  // The layers (README "Architecture"): the domain is pure and imports only itself and effect; the
  // application, the HTTP adapters, the jobs and the ports never reach into an adapter.
  {
    files: ["src/domain/**/*.ts"],
    ignores: ["src/domain/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { regex: "^(?!effect(/|$)|\\./)", message: "src/domain imports only effect and src/domain (pure code)." }
          ]
        }
      ]
    }
  },
  {
    files: ["src/app/**/*.ts", "src/http/**/*.ts", "src/ports/**/*.ts", "src/jobs/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "(^|/)adapters/",
              message: "only the composition root (src/Live.ts, src/Roles.ts) and adapters import src/adapters."
            }
          ]
        }
      ]
    }
  },
  // Plain JavaScript run by Node as is (scripts/start.mjs, test/support/*.mjs): Node's globals.
  {
    files: ["scripts/**/*.mjs", "test/**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } }
  },
  // Tests read untyped JSON bodies.
  { files: ["test/**", "scripts/**", "**/*.test.ts"], rules: { "@typescript-eslint/no-explicit-any": "off" } }
)
