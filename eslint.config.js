import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["node_modules", ".data", "coverage"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
      "no-console": ["error", { allow: ["error"] }],
      // Effect idiom: Data.TaggedError("X")<{}> for errors without fields.
      "@typescript-eslint/no-empty-object-type": "off"
    }
  },
  { files: ["src/cli.ts", "bench/**", "test/**"], rules: { "no-console": "off" } },
  // Tests read untyped JSON bodies.
  { files: ["test/**", "**/*.test.ts"], rules: { "@typescript-eslint/no-explicit-any": "off" } }
)
