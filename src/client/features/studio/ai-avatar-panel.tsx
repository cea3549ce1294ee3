import { Bot } from "lucide-react";
import { EmptyState } from "@/client/components/ui/empty-state";

/**
 * AI avatar video tab of /studio (spec section 2). Placeholder: the AI avatar issue replaces this
 * component (provider choice, script, Generate Video, polling, result). `onCreated` lets it refresh
 * the library when a video lands there.
 */
export function AiAvatarPanel(_props: { onCreated?: () => void }) {
  return (
    <EmptyState
      icon={Bot}
      title="AI avatar videos"
      description="Type a script and get a talking-avatar video. This panel arrives with the AI avatar feature."
    />
  );
}
