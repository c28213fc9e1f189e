import java.io.File;
import java.nio.charset.StandardCharsets;
import org.deidentifier.arx.*;
import org.deidentifier.arx.ARXConfiguration.SearchStepSemantics;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.criteria.EDDifferentialPrivacy;
import org.deidentifier.arx.metric.Metric;

/**
 * A harness (not part of ARX) that runs ARX's SafePub (data-dependent (e,d)-DP) on privcheck's
 * Adult set-up, for benchmarks/safepub.py --arx DIR. Compiled against a built ARX at run time.
 *
 * java SafePubBench ADULT_DIR EPSILON DELTA STEPS SEARCH_FRACTION METRIC(loss|prec) OUT REPEATS
 *
 * Runs REPEATS anonymizations in one JVM (the first warms it up) and writes run i's release to
 * OUT-i.csv, printing one line per run: its seconds (the anonymize call only), k, beta, node.
 * 8 quasi-identifiers with ARX's hierarchies; salary-class, released as it stands, is a
 * quasi-identifier held at level 0 so that it takes part in the classes (as in privcheck).
 */
public class SafePubBench {
    static final String[] QIS = {"age", "sex", "race", "marital-status", "education",
                                 "native-country", "workclass", "occupation"};

    public static void main(String[] a) throws Exception {
        String dir = a[0];
        double epsilon = Double.parseDouble(a[1]), delta = Double.parseDouble(a[2]);
        int steps = Integer.parseInt(a[3]);
        double fraction = Double.parseDouble(a[4]);
        String metric = a[5];
        int repeats = Integer.parseInt(a[7]);
        for (int r = 0; r < repeats; r++) {
            Data data = Data.create(dir + "/adult.csv", StandardCharsets.UTF_8, ';');
            for (String q : QIS) {
                data.getDefinition().setAttributeType(q, Hierarchy.create(
                    dir + "/hierarchies/" + q + ".csv", StandardCharsets.UTF_8, ';'));
            }
            data.getDefinition().setAttributeType("salary-class", Hierarchy.create(
                dir + "/hierarchies/salary-class.csv", StandardCharsets.UTF_8, ';'));
            data.getDefinition().setMaximumGeneralization("salary-class", 0);
            ARXConfiguration config = ARXConfiguration.create(1d,
                metric.equals("prec") ? Metric.createPrecisionMetric() : Metric.createLossMetric());
            config.addPrivacyModel(new EDDifferentialPrivacy(epsilon, delta));
            config.setDPSearchBudget(fraction * epsilon);
            config.setHeuristicSearchStepLimit(steps, SearchStepSemantics.EXPANSIONS);
            long t0 = System.nanoTime();
            ARXResult result = new ARXAnonymizer().anonymize(data, config);
            double seconds = (System.nanoTime() - t0) / 1e9;
            ARXLattice.ARXNode node = result.getGlobalOptimum();
            StringBuilder sb = new StringBuilder();
            String[] attrs = node.getQuasiIdentifyingAttributes();
            int[] levels = node.getTransformation();
            for (int i = 0; i < attrs.length; i++) {
                sb.append(attrs[i]).append('=').append(levels[i]).append(',');
            }
            result.getOutput().save(new File(a[6] + "-" + r + ".csv"), ';');
            EDDifferentialPrivacy dp = config.getPrivacyModel(EDDifferentialPrivacy.class);
            System.out.printf("seconds=%.4f k=%d beta=%.6f node=%s%n", seconds, dp.getK(),
                              dp.getBeta(), sb.toString());
        }
    }
}
