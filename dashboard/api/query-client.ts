// The one query cache. A refused session (401 on any query) clears who is signed in, so the
// dashboard goes to the sign-in page; other errors are retried only when the service may recover.
import { QueryCache, QueryClient } from "@tanstack/react-query";
import { GpuApiError } from "../../client/index.ts";
import { isUnauthorized } from "./api-errors.ts";
import { meKey } from "./keys.ts";

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({
    onError: (error) => {
      if (isUnauthorized(error)) queryClient.setQueryData(meKey, null);
    },
  }),
  defaultOptions: {
    queries: {
      retry: (failures, error) => failures < 2 && !(error instanceof GpuApiError && error.status < 500),
      staleTime: 1_000,
    },
    mutations: { retry: false },
  },
});
