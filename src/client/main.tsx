// first: zod without its `new Function` probe (the CSP has no 'unsafe-eval')
import "./zod-config";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { FullScreenSpinner } from "./components/ui/spinner";
import { AuthProvider, useAuth } from "./features/auth/auth-context";
import { createAuthStore } from "./features/auth/auth-store";
import { httpStatusOf } from "./lib/errors";
import { createAppRouter } from "./router";
import { createTrpcClient, TRPCProvider } from "./trpc";
import "./styles.css";
import { getStoredTheme } from "./themes";

// The saved theme, before anything renders (index.html does the same inline, unless a CSP blocks it).
document.documentElement.dataset.theme = getStoredTheme();

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      // Client errors (4xx) will not fix themselves; retry network and server errors twice.
      retry: (count, error) => {
        const status = httpStatusOf(error) ?? 0;
        return !(status >= 400 && status < 500) && count < 2;
      },
    },
  },
});

// the plan usage (billing.usage: meters, banners) follows every change that may move it, at once rather
// than once its 30 s stale time has passed and something mounts it again
const trpcClient = createTrpcClient({
  onMutation: () => void queryClient.invalidateQueries({ queryKey: [["billing", "usage"]] }),
});
const auth = createAuthStore(trpcClient);
const router = createAppRouter({ queryClient, auth });

// Cached data belongs to one user: drop it whenever the signed-in user changes (login, logout).
let currentUserId = auth.user?.id ?? null;
auth.subscribe(() => {
  const next = auth.user?.id ?? null;
  if (next !== currentUserId) {
    currentUserId = next;
    queryClient.clear();
  }
});

void auth.load();

function App() {
  const { status } = useAuth();
  if (status === "loading") return <FullScreenSpinner label="Loading Pitchwise..." />;
  return <RouterProvider router={router} />;
}

const rootElement = document.getElementById("root");
if (!rootElement) throw new Error("#root element missing from index.html");

createRoot(rootElement).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <AuthProvider store={auth}>
          <App />
        </AuthProvider>
      </TRPCProvider>
    </QueryClientProvider>
  </StrictMode>,
);
