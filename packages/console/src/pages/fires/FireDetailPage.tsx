// Not built yet: a placeholder so the routes resolve.
export default function FireDetailPage() {
  return <div>FireDetailPage</div>;
}
