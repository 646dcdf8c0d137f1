// Not built yet: a placeholder so the routes resolve.
export default function AppsPage() {
  return <div>AppsPage</div>;
}
