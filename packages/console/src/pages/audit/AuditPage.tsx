// Not built yet: a placeholder so the routes resolve.
export default function AuditPage() {
  return <div>AuditPage</div>;
}
