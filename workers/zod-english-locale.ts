// What the bundle gets for zod's locale index: English alone. wrangler.toml's `alias` sends zod's own
// `../locales/index.js` imports here (no other package in the bundle imports that path), so its
// other locales stay out; scripts/deploy-check.test.ts checks the bundle holds `en` only.
export { default as en } from "zod/v4/locales/en.js";
