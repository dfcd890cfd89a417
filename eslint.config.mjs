// One lint config for the workspace: type-aware rules so floating promises are caught.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/dist/**", "**/.next/**", "**/generated/**", "**/node_modules/**", "**/*.config.ts", "**/next-env.d.ts"] },
  js.configs.recommended,
  // Plain Node scripts (bench/, scripts/, build helpers): the recommended rules, no type information.
  {
    files: ["**/*.mjs"],
    languageOptions: { globals: globals.node },
    rules: { "no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }] },
  },
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, ignores: ["**/*.mjs"] })),
  {
    ignores: ["**/*.mjs"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
);
