import java.util.ArrayList;
import java.util.List;
import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.criteria.KMap;

/**
 * A harness (not part of ARX) that prints the k' ARX's KMap derives with each cell-size estimator
 * (k-map estimated from a population size), for the figures pinned in
 * tests/models/test_population_models.py. Compiled against a built ARX
 * (../shared/tools/arx/build.sh):
 *
 * java KMapBench N_RECORDS POPULATION_SIZE K SIGNIFICANCE
 */
public class KMapBench {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        long population = Long.parseLong(a[1]);
        int k = Integer.parseInt(a[2]);
        double alpha = Double.parseDouble(a[3]);
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"q"});
        for (int i = 0; i < n; i++) rows.add(new String[] {"v" + (i % 7)});
        Data data = Data.create(rows);
        data.getDefinition().setAttributeType("q", AttributeType.QUASI_IDENTIFYING_ATTRIBUTE);
        Hierarchy.DefaultHierarchy h = Hierarchy.create();
        for (int i = 0; i < 7; i++) h.add("v" + i, "*");
        data.getDefinition().setAttributeType("q", h);
        for (KMap.CellSizeEstimator est : KMap.CellSizeEstimator.values()) {
            KMap m = new KMap(k, alpha, ARXPopulationModel.create(population), est);
            ARXConfiguration config = ARXConfiguration.create();
            config.addPrivacyModel(m);
            config.setSuppressionLimit(1d);
            ARXResult result = new ARXAnonymizer().anonymize(data, config);
            KMap used = result.getConfiguration().getPrivacyModel(KMap.class);
            System.out.println(est + " " + used.getDerivedK());
            data.getHandle().release();
        }
    }
}
