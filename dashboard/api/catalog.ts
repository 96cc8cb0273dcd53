// What can be launched: GPU models with prices and free GPUs (changing), and the catalog of
// templates and models (fixed while the page is open).
import { useQuery } from "@tanstack/react-query";
import { ok, type components } from "../../client/index.ts";
import { api } from "./client.ts";
import { catalogKey, gpusKey } from "./keys.ts";

export type Gpu = components["schemas"]["Gpu"];
export type Template = components["schemas"]["Template"];
export type Model = components["schemas"]["Model"];

export const useGpus = () =>
  useQuery({ queryKey: gpusKey, queryFn: () => ok(api.GET("/v1/gpus")).then((list) => list.gpus), refetchInterval: 10_000 });

export const useCatalog = () => useQuery({ queryKey: catalogKey, queryFn: () => ok(api.GET("/v1/catalog")), staleTime: Infinity });
