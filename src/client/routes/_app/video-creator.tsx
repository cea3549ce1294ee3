import { createFileRoute, redirect } from "@tanstack/react-router";

/** Legacy link target (spec section 2): the AI avatar tab of the studio. */
export const Route = createFileRoute("/_app/video-creator")({
  beforeLoad: () => {
    throw redirect({ to: "/studio", search: { tab: "ai-avatar" } });
  },
});
