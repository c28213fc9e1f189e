import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.deidentifier.arx.*;
import org.deidentifier.arx.risk.RiskModelPopulationUniqueness;

/**
 * A harness (not part of ARX) that runs ARX's population-uniqueness estimators on a sample given
 * by its class sizes, for benchmarks/population_estimators.py --arx DIR. Compiled against a
 * built ARX at run time.
 *
 * java EstimatorsBench SIZES_FILE POPULATION_SIZE
 *
 * SIZES_FILE: one class size per line. Prints the estimated share of population uniques of
 * Zayatz, Pitman, SNB and Dankar's rule (and the model that rule chose), one per line.
 */
public class EstimatorsBench {
    public static void main(String[] a) throws Exception {
        List<String> lines = Files.readAllLines(Paths.get(a[0]));
        long population = Long.parseLong(a[1]);
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"q"});
        int id = 0;
        for (String line : lines) {
            if (line.trim().isEmpty()) continue;
            int size = Integer.parseInt(line.trim());
            for (int i = 0; i < size; i++) rows.add(new String[] {"c" + id});
            id++;
        }
        Data data = Data.create(rows);
        data.getDefinition().setAttributeType("q", AttributeType.QUASI_IDENTIFYING_ATTRIBUTE);
        RiskModelPopulationUniqueness u = data.getHandle()
                .getRiskEstimator(ARXPopulationModel.create(population))
                .getPopulationBasedUniquenessRisk();
        System.out.println("zayatz " + u.getFractionOfUniqueTuplesZayatz());
        System.out.println("pitman " + u.getFractionOfUniqueTuplesPitman());
        System.out.println("snb " + u.getFractionOfUniqueTuplesSNB());
        System.out.println("dankar " + u.getFractionOfUniqueTuplesDankar() + " "
                + u.getPopulationUniquenessModel());
    }
}
