; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

declare void @"TourEntry"()

declare void @"TourShared"()

declare void @"TourThread"()

declare void @"TourCoalesceNode"()

declare void @"TourEmpty"()

!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.entryPoints = !{ !2, !26, !31, !38, !42, !46 }
!wgc.spirv.entryPoints = !{ !47, !48, !49, !50, !51 }
!wgc.experimental.tags = !{ !52, !53 }
!llvm.ident = !{ !54 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ null, !"", null, null, null }
!3 = !{ !"TourEntry", i32 0 }
!4 = !{ i32 64, i32 1, i32 1 }
!5 = !{ i32 0, i32 5, i32 3 }
!6 = !{ i32 0, i32 20, i32 1, !5, i32 2, i32 4 }
!7 = !{ i32 1, i32 97, i32 2, !6 }
!8 = !{ !7 }
!9 = !{ i32 0, i32 5, i32 1 }
!10 = !{ i32 0, i32 12, i32 1, !9, i32 2, i32 4 }
!11 = !{ !"TourShared", i32 0 }
!12 = !{ i32 1, i32 262, i32 2, !10, i32 3, i32 1, i32 0, !11 }
!13 = !{ i32 0, i32 20, i32 2, i32 4 }
!14 = !{ !"TourThread", i32 0 }
!15 = !{ i32 1, i32 6, i32 2, !13, i32 3, i32 32, i32 0, !14 }
!16 = !{ i32 0, i32 8, i32 2, i32 4 }
!17 = !{ !"TourCoalesce", i32 2 }
!18 = !{ i32 1, i32 6, i32 2, !16, i32 3, i32 4, i32 0, !17 }
!19 = !{ !"TourEmpty", i32 0 }
!20 = !{ i32 1, i32 10, i32 3, i32 2, i32 0, !19 }
!21 = !{ !"TourOptional", i32 0 }
!22 = !{ i32 1, i32 10, i32 3, i32 1, i32 6, i1 true, i32 0, !21 }
!23 = !{ !12, !15, !18, !20, !22 }
!24 = !{ i32 32, i32 1, i32 1 }
!25 = !{ i32 8, i32 15, i32 13, i32 1, i32 14, i1 true, i32 15, !3, i32 16, i32 -1, i32 22, !4, i32 20, !8, i32 21, !23, i32 4, !24 }
!26 = !{ void ()* @"TourEntry", !"TourEntry", null, null, !25 }
!27 = !{ i32 8, i32 1, i32 1 }
!28 = !{ i32 1, i32 869, i32 2, !10 }
!29 = !{ !28 }
!30 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !11, i32 16, i32 -1, i32 22, !27, i32 20, !29, i32 4, !4 }
!31 = !{ void ()* @"TourShared", !"TourShared", null, null, !30 }
!32 = !{ i32 1, i32 37, i32 2, !13 }
!33 = !{ !32 }
!34 = !{ i32 1, i32 6, i32 2, !13, i32 3, i32 1, i32 0, !14 }
!35 = !{ !34, !18 }
!36 = !{ i32 1, i32 1, i32 1 }
!37 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !14, i32 16, i32 -1, i32 19, i32 3, i32 20, !33, i32 21, !35, i32 4, !36 }
!38 = !{ void ()* @"TourThread", !"TourThread", null, null, !37 }
!39 = !{ i32 1, i32 65, i32 2, !16, i32 3, i32 8 }
!40 = !{ !39 }
!41 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !17, i32 16, i32 -1, i32 20, !40, i32 4, !27 }
!42 = !{ void ()* @"TourCoalesceNode", !"TourCoalesceNode", null, null, !41 }
!43 = !{ i32 1, i32 9, i32 3, i32 16 }
!44 = !{ !43 }
!45 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !19, i32 16, i32 -1, i32 20, !44, i32 4, !36 }
!46 = !{ void ()* @"TourEmpty", !"TourEmpty", null, null, !45 }
!47 = !{ void ()* @"TourEntry", !"TourEntry" }
!48 = !{ void ()* @"TourShared", !"TourShared" }
!49 = !{ void ()* @"TourThread", !"TourThread" }
!50 = !{ void ()* @"TourCoalesceNode", !"TourCoalesce" }
!51 = !{ void ()* @"TourEmpty", !"TourEmpty" }
!52 = !{ !"NodeMaxLoopIterations", i32 131072 }
!53 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!54 = !{ !"wgc 0.1.0" }
