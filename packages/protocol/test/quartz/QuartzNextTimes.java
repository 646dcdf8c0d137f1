import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.Date;
import java.util.TimeZone;
import org.quartz.CronExpression;

/**
 * Reference oracle for the schedule tests: reads cases from stdin, one a line,
 * "id TAB expression TAB zone TAB fromEpochMs TAB count", and prints for each
 * "id TAB OK TAB t1,t2,... TAB transition" (epoch ms strictly after fromEpochMs, as Quartz's
 * CronExpression.getTimeAfter computes them, then the zone's first UTC-offset change after
 * fromEpochMs, or -1 when it has none) or "id TAB ERR TAB message".
 */
public final class QuartzNextTimes {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isEmpty()) continue;
      String[] f = line.split("\t", -1);
      String id = f[0];
      try {
        CronExpression cron = new CronExpression(f[1]);
        cron.setTimeZone(TimeZone.getTimeZone(f[2]));
        Date after = new Date(Long.parseLong(f[3]));
        int count = Integer.parseInt(f[4]);
        StringBuilder times = new StringBuilder();
        for (int i = 0; i < count; i++) {
          Date next = cron.getTimeAfter(after);
          if (next == null) break;
          if (i > 0) times.append(',');
          times.append(next.getTime());
          after = next;
        }
        ZoneOffsetTransition transition = ZoneId.of(f[2]).getRules().nextTransition(Instant.ofEpochMilli(Long.parseLong(f[3])));
        long transitionAt = transition == null ? -1 : transition.getInstant().toEpochMilli();
        out.println(id + "\tOK\t" + times + "\t" + transitionAt);
      } catch (Exception e) {
        out.println(id + "\tERR\t" + String.valueOf(e.getMessage()).replace('\t', ' ').replace('\n', ' '));
      }
    }
    out.flush();
  }
}
