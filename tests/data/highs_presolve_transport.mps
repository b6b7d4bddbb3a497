NAME        
ROWS
 N  Obj     
 E  r0      
 E  r1      
 E  r2      
 E  r3      
 L  r4      
 L  r5      
 L  r6      
 L  r7      
 L  r8      
 L  r9      
 L  r10     
 L  r11     
 G  r12     
 G  r13     
 G  r14     
 E  r15     
 E  r16     
 E  r17     
 E  r18     
 E  r19     
 E  r20     
 E  r21     
 E  r22     
 E  r23     
 E  r24     
 E  r25     
 E  r26     
 E  r27     
 E  r28     
 E  r29     
 E  r30     
 E  r31     
 E  r32     
 E  r33     
 L  r34     
 L  r35     
 L  r36     
COLUMNS
    MARK0000  'MARKER'                 'INTORG'
    c0        r4        -1
    c0        r5        -1
    c0        r12       -1
    c1        r6        -1
    c1        r7        -1
    c1        r13       -1
    c2        r8        -1
    c2        r9        -1
    c2        r10       -1
    c2        r11       -1
    c2        r14       -1
    c3        r0        1
    c3        r4        1
    c3        r12       1
    c3        r15       -1
    c3        r18       -1
    c4        r1        1
    c4        r5        1
    c4        r12       1
    c4        r15       -1
    c4        r19       -1
    c5        r2        1
    c5        r6        1
    c5        r13       1
    c5        r16       -1
    c5        r20       -1
    c6        r3        1
    c6        r7        1
    c6        r13       1
    c6        r16       -1
    c6        r21       -1
    c7        Obj       1
    c7        r0        1
    c7        r8        1
    c7        r14       1
    c7        r17       -1
    c7        r22       -1
    c8        Obj       1
    c8        r1        1
    c8        r9        1
    c8        r14       1
    c8        r17       -1
    c8        r23       -1
    c9        Obj       1
    c9        r2        1
    c9        r10       1
    c9        r14       1
    c9        r17       -1
    c9        r22       -1
    c10       Obj       1
    c10       r3        1
    c10       r11       1
    c10       r14       1
    c10       r17       -1
    c10       r24       -1
    MARK0001  'MARKER'                 'INTEND'
    c11       r15       1
    c11       r25       2
    c11       r26       1
    c11       r27       1
    c11       r34       -4
    c12       r16       1
    c12       r28       2
    c12       r29       1
    c12       r30       1
    c12       r35       -4
    c13       r17       1
    c13       r31       2
    c13       r32       1
    c13       r33       1
    c13       r36       -4
    c14       r18       1
    c14       r25       -4
    c15       r19       1
    c15       r26       -4
    c16       r20       1
    c16       r28       -4
    c17       r21       1
    c17       r30       -4
    c18       r22       1
    c18       r31       -4
    c19       r23       1
    c19       r32       -4
    c20       r24       1
    c20       r33       -4
    c21       r25       1
    c21       r26       -1
    c21       r34       2
    c22       r25       1
    c22       r27       -1
    c22       r34       4
    c23       r25       -1
    c23       r26       1
    c23       r34       2
    c24       r26       1
    c24       r27       -1
    c24       r34       4
    c25       r25       -1
    c25       r27       1
    c25       r34       4
    c26       r26       -1
    c26       r27       1
    c26       r34       4
    c27       r28       1
    c27       r29       -1
    c27       r35       2
    c28       r28       1
    c28       r30       -1
    c28       r35       4
    c29       r28       -1
    c29       r29       1
    c29       r35       2
    c30       r29       1
    c30       r30       -1
    c30       r35       4
    c31       r28       -1
    c31       r30       1
    c31       r35       4
    c32       r29       -1
    c32       r30       1
    c32       r35       4
    c33       r31       1
    c33       r32       -1
    c33       r36       2
    c34       r31       1
    c34       r33       -1
    c34       r36       4
    c35       r31       -1
    c35       r32       1
    c35       r36       2
    c36       r32       1
    c36       r33       -1
    c36       r36       4
    c37       r31       -1
    c37       r33       1
    c37       r36       4
    c38       r32       -1
    c38       r33       1
    c38       r36       4
RHS
    RHS_V     r0        1
    RHS_V     r1        1
    RHS_V     r2        1
    RHS_V     r3        1
BOUNDS
 BV BOUND     c0      
 BV BOUND     c1      
 BV BOUND     c2      
 BV BOUND     c3      
 BV BOUND     c4      
 BV BOUND     c5      
 BV BOUND     c6      
 BV BOUND     c7      
 BV BOUND     c8      
 BV BOUND     c9      
 BV BOUND     c10     
 UP BOUND     c11       2
 UP BOUND     c12       2
 UP BOUND     c13       4
 UP BOUND     c14       1
 UP BOUND     c15       1
 UP BOUND     c16       1
 UP BOUND     c17       1
 UP BOUND     c18       2
 UP BOUND     c19       1
 UP BOUND     c20       1
ENDATA
