import { useLocation } from "@tanstack/react-router";
import { useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { noticeForThisLoad } from "@/client/lib/notice-after-reload";

/**
 * The success banner of an action that ended with a full page load (lib/notice-after-reload), shown on
 * the page the load lands on (role="status") until dismissed or until the person goes to another page.
 */
export function NoticeAfterReload() {
  const [notice, setNotice] = useState(() => {
    const message = noticeForThisLoad();
    return message ? { message, path: window.location.pathname } : null;
  });
  const { pathname } = useLocation();
  if (!notice || notice.path !== pathname) return null;
  return (
    <AlertBanner variant="success" onDismiss={() => setNotice(null)} className="mb-6">
      {notice.message}
    </AlertBanner>
  );
}
