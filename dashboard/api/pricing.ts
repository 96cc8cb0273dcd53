// What is on offer (GET /pricing.json): no session needed, so visitors see it too.
import { useQuery } from "@tanstack/react-query";
import { ok } from "../../client/index.ts";
import { api } from "./client.ts";
import { pricingKey } from "./keys.ts";

export const usePricing = () => useQuery({ queryKey: pricingKey, queryFn: () => ok(api.GET("/pricing.json")), refetchInterval: 30_000 });
